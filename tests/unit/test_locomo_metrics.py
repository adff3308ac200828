"""The LoCoMo benchmark's scoring (scripts/locomo_metrics.py): text-credited recall, the flat
baseline's cut at a token budget, the paired bootstrap interval and the merge audit."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.unit.scripts import load_script

load_script("locomo_data")  # locomo_metrics imports it by its top-level name
metrics = load_script("locomo_metrics")

pytestmark = pytest.mark.unit

Item = metrics.Item

TURN = "Caroline: I went to the LGBTQ support group yesterday and it was really so powerful."
TEXTS = {"D1:1": TURN, "D1:2": "Melanie: That sounds great, tell me more!"}
# Distinct word tokens of TURN: caroline i went to the lgbtq support group yesterday and it was
# really so powerful = 15; 80 % of them is 12.
TURN_WORDS = sorted(metrics.word_tokens(TURN))


def test_the_turn_has_fifteen_distinct_words() -> None:
    assert len(TURN_WORDS) == 15


def test_a_citing_memory_that_contains_the_text_credits_the_turn() -> None:
    memory = Item(
        ["D1:1"],
        "  caroline:   I WENT to the LGBTQ support group yesterday and it was "
        "really so powerful.  She felt welcome.",
    )
    assert metrics.text_credited([memory], TEXTS, ["D1:1"]) == 1.0


def _with_words(count: int) -> str:
    """A content holding exactly `count` of the turn's distinct words, none of them twice."""
    return " ".join(TURN_WORDS[:count]) + " unrelated filler"


def test_eighty_percent_of_the_words_credit_the_turn() -> None:
    memory = Item(["D1:1"], _with_words(12))  # 12 / 15 = 80 %
    assert metrics.text_credited([memory], TEXTS, ["D1:1"]) == 1.0


def test_just_under_eighty_percent_of_the_words_does_not() -> None:
    memory = Item(["D1:1"], _with_words(11))  # 11 / 15 = 73 %
    assert metrics.text_credited([memory], TEXTS, ["D1:1"]) == 0.0


def test_the_union_of_two_citing_memories_credits_a_split_turn() -> None:
    first = Item(["D1:1"], "Caroline: I went to the LGBTQ support group yesterday")
    second = Item(["D1:1"], "and it was really so powerful.")
    assert metrics.text_credited([first], TEXTS, ["D1:1"]) == 0.0  # 9 / 15 alone (second: 6 / 15)
    assert metrics.text_credited([second], TEXTS, ["D1:1"]) == 0.0
    assert metrics.text_credited([first, second], TEXTS, ["D1:1"]) == 1.0


def test_a_memory_that_cites_the_turn_but_lost_its_text_is_not_credited() -> None:
    merged = Item(["D1:2", "D1:1"], "Melanie: That sounds great, tell me more!")
    assert metrics.source_credited([merged], ["D1:1", "D1:2"]) == 1.0
    assert metrics.text_credited([merged], TEXTS, ["D1:1", "D1:2"]) == 0.5


def test_a_memory_with_the_text_that_does_not_cite_the_turn_is_not_credited() -> None:
    stray = Item(["D1:2"], TURN)
    assert metrics.text_credited([stray], TEXTS, ["D1:1"]) == 0.0
    citing_other = [stray, Item(["D1:1"], "Caroline went somewhere")]
    assert metrics.text_credited(citing_other, TEXTS, ["D1:1"]) == 0.0


def test_source_credited_recall_counts_cited_ids_in_the_first_k() -> None:
    ranked = [{"D1:2"}, {"D1:1", "D1:3"}]
    assert metrics.recall_at(ranked, ["D1:1", "D1:9"], 1) == 0.0
    assert metrics.recall_at(ranked, ["D1:1", "D1:9"], 2) == 0.5


def test_a_question_without_evidence_cannot_be_scored() -> None:
    with pytest.raises(ValueError):
        metrics.text_credited([], TEXTS, [])


def _chars(texts: Sequence[str]) -> int:
    return sum(len(t) for t in texts)


def test_flat_packing_stops_before_the_text_that_would_exceed_the_budget() -> None:
    texts = ["a" * 40, "b" * 40, "c" * 30, "d" * 1]
    assert metrics.fit_count(texts, 110, _chars) == 3  # 110 exactly: fits
    assert metrics.fit_count(texts, 109, _chars) == 2  # the third would take it to 110
    # In rank order: the short fourth text is not pulled in past the one that did not fit.
    assert metrics.fit_count(texts, 81, _chars) == 2
    assert metrics.fit_count(texts, 39, _chars) == 0
    assert metrics.fit_count(texts, 10_000, _chars) == 4


def _scores(values: Sequence[float]) -> dict[str, float]:
    return {f"conv-1:{i}": v for i, v in enumerate(values)}


def test_the_bootstrap_is_deterministic_with_its_seed() -> None:
    a = _scores([((i * 37) % 101) / 101 for i in range(50)])
    b = _scores([((i * 11) % 53) / 53 for i in range(50)])
    first = metrics.paired_bootstrap(a, b, resamples=2000, seed=19)
    again = metrics.paired_bootstrap(a, b, resamples=2000, seed=19)
    other = metrics.paired_bootstrap(a, b, resamples=2000, seed=20)
    assert first == again
    assert (other.low, other.high) != (first.low, first.high)


def test_a_constant_difference_gives_a_zero_width_interval_at_that_value() -> None:
    a = _scores([0.75, 1.0, 0.5, 0.25])
    b = _scores([0.5, 0.75, 0.25, 0.0])
    ci = metrics.paired_bootstrap(a, b)
    assert ci.mean == pytest.approx(0.25)
    assert ci.low == pytest.approx(0.25)
    assert ci.high == pytest.approx(0.25)
    assert ci.high - ci.low == 0.0
    assert ci.resamples == 10_000 and ci.seed == 19


def test_the_interval_contains_the_mean_and_is_paired_by_question() -> None:
    a = _scores([1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.5, 1.0, 0.0])
    b = _scores([0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.0, 0.5, 1.0, 0.0])
    ci = metrics.paired_bootstrap(a, b)
    assert ci.mean == pytest.approx(0.2)
    assert ci.low < ci.mean < ci.high
    assert ci.high - ci.low > 0.1
    # Paired by key, not by order.
    reordered = dict(reversed(list(b.items())))
    assert metrics.paired_bootstrap(a, reordered) == ci
    with pytest.raises(ValueError):
        metrics.paired_bootstrap(a, _scores([0.0] * 9))


def test_the_merge_audit_counts_merged_sources_whose_text_the_memory_kept() -> None:
    audit = metrics.MergeAudit()
    memories = [
        Item(["D1:1"], TURN),
        # Made from D1:2, D1:1 merged into it: its text was dropped.
        Item(["D1:2", "D1:1"], TEXTS["D1:2"]),
        # Both kept; an id that names no turn of the conversation is not counted.
        Item(["D1:2", "D1:1", "elsewhere"], TEXTS["D1:2"] + " " + TURN),
    ]
    audit.add(memories, TEXTS)
    summary = audit.summary()
    assert summary["memories"] == 3
    assert summary["with_several_sources"] == 2
    assert summary["max_sources"] == 3
    assert summary["merged_sources"] == 2
    assert summary["merged_sources_shown"] == 1
    assert summary["merged_shown_share"] == 0.5


def test_recall_by_age_buckets_questions_by_their_evidence_age() -> None:
    """Issue 32: the table that shows what forgetting costs, by active days since the
    evidence; the bucket edges are half-open (7 days is in 7-30)."""
    memory = {"a": 1.0, "b": 0.0, "c": 0.5, "d": 1.0}
    flat = {"a": 0.5, "b": 1.0, "c": 0.5, "d": 0.0}
    ages = {"a": 0.0, "b": 6.9, "c": 7.0, "d": 120.0}
    rows = {r["age"]: r for r in metrics.recall_by_age(memory, flat, ages)}
    assert [r["n"] for r in rows.values()] == [2, 1, 0, 1]
    assert rows["< 7 days"] == {
        "age": "< 7 days",
        "n": 2,
        "memory": 0.5,
        "flat": 0.75,
        "difference": -0.25,
    }
    assert rows["30-90 days"]["memory"] is None and rows["30-90 days"]["difference"] is None
    assert rows[">= 90 days"]["difference"] == 1.0


def test_the_evidence_share_counts_the_tokens_of_items_citing_an_evidence_turn() -> None:
    """Issue 32, "forgetting earns its keep": the share of a context's item tokens that come
    from items citing an evidence turn (tokens here: words)."""
    cut = [
        Item(["D1:1"], "one two three"),
        Item(["D1:2"], "four five six seven eight nine"),
        Item(["D1:2", "D1:1"], "ten"),
    ]

    def words(content: str) -> int:
        return len(content.split())

    assert metrics.evidence_share(cut, ["D1:1"], words) == pytest.approx(4 / 10)
    assert metrics.evidence_share(cut, ["D1:9"], words) == 0.0
    assert metrics.evidence_share([], ["D1:1"], words) == 0.0
