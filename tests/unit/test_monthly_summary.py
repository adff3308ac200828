"""The monthly summary (spec §3.5, §4): what the user is shown once a month, from the graph."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from selfimprint.domain.models import (
    Belief,
    Hypothesis,
    HypothesisStatus,
    Node,
    NodeType,
    Tension,
    TensionStatus,
)
from selfimprint.domain.monthly_summary import (
    EntryKind,
    MonthlySummary,
    SkipReason,
    SummaryConfig,
    SummaryStatus,
    covered_month,
    month_bounds,
    plan_monthly_summary,
    render_summary,
    skipped_summary,
    summary_id,
    summary_language,
    summary_schedule_id,
    without_entries,
)
from selfimprint.domain.users import Tier

pytestmark = pytest.mark.unit

UTC_ZONE = ZoneInfo("UTC")
RUN = datetime(2026, 3, 1, 14, 0, tzinfo=UTC)  # the schedule's run on March 1st
IN_FEB = datetime(2026, 2, 10, tzinfo=UTC)
IN_JAN = datetime(2026, 1, 10, tzinfo=UTC)


def node(
    nid: str,
    content: str,
    *,
    at: datetime = IN_JAN,
    confidence: float = 0.5,
    type: NodeType = NodeType.FACT,
    significant: bool = False,
    importance: float = 0.5,
    inference: bool = False,
) -> Node:
    return Node(
        id=nid, user_id="u1", type=type, content=content, weight_at=at, created_at=at,
        significant=significant, importance=importance,
        is_inference=inference or type is NodeType.HYPOTHESIS,
        belief=Belief(first_seen=at, confidence=confidence),
    )  # fmt: skip


def plan(nodes: list[Node], **kwargs: object) -> MonthlySummary:
    args: dict[str, object] = {
        "hypotheses": (),
        "tensions": (),
        "produced_at": RUN,
        "language": "en",
        "previous_total": None,
    }
    args.update(kwargs)
    return plan_monthly_summary("u1", "2026-02", UTC_ZONE, nodes=nodes, **args)  # type: ignore[arg-type]


def test_the_run_on_the_first_covers_the_month_that_ended_in_the_users_zone() -> None:
    assert covered_month(RUN, UTC_ZONE) == "2026-02"
    assert covered_month(datetime(2026, 1, 1, 12, tzinfo=UTC), UTC_ZONE) == "2025-12"
    # 12:00 UTC on the 1st is still the 1st in Honolulu and already the 2nd in Kiritimati.
    assert covered_month(datetime(2026, 3, 1, 12, tzinfo=UTC), ZoneInfo("Pacific/Honolulu")) == (
        "2026-02"
    )
    assert covered_month(RUN + timedelta(hours=6), ZoneInfo("Pacific/Kiritimati")) == "2026-02"


def test_month_bounds_are_local_and_half_open() -> None:
    start, end = month_bounds("2026-12", ZoneInfo("Europe/Moscow"))
    assert start.isoformat() == "2026-12-01T00:00:00+03:00"
    assert end.isoformat() == "2027-01-01T00:00:00+03:00"
    with pytest.raises(ValueError):
        month_bounds("2026-13", UTC_ZONE)


def test_one_id_per_user_and_month() -> None:
    assert summary_id("u1", "2026-02") == "u1-2026-02"
    assert summary_schedule_id("acme", "u-1") == "monthly-summary-acme-u-1"
    with pytest.raises(ValueError):
        summary_id("u1", "2026-2")


def test_summary_holds_hypotheses_significant_assumptions_and_tensions() -> None:
    hypo = node("h1", "Works best in the morning", type=NodeType.HYPOTHESIS, confidence=0.4)
    refuted = node("h2", "Hates tea", type=NodeType.HYPOTHESIS, confidence=0.9)
    nodes = [
        hypo,
        refuted,
        node("sister", "Sister Ana lives in Porto", significant=True, importance=0.9),
        node("job", "Quit Initech", significant=True, importance=0.7, confidence=0.3),
        node("guess", "Probably likes jazz", confidence=0.2, inference=True),
        node("said", "Plays chess", confidence=0.2),
        node("sure", "Born in Lisbon", confidence=0.95),
        node("a", "Loves running", at=IN_FEB),
        node("b", "Hates running", at=IN_FEB),
        node("march", "Added after the month", at=RUN, confidence=0.0),
    ]
    hypotheses = [
        Hypothesis(node_id="h1", created_at=IN_JAN, deadline=RUN),
        Hypothesis(node_id="h2", created_at=IN_JAN, deadline=RUN, status=HypothesisStatus.REFUTED),
    ]
    tensions = [
        Tension(id="t1", node_a="a", node_b="b", detected_at=IN_FEB),
        Tension(id="t2", node_a="sure", node_b="said", detected_at=IN_FEB,
                status=TensionStatus.RESOLVED),
    ]  # fmt: skip
    summary = plan(nodes, hypotheses=hypotheses, tensions=tensions, previous_total=7)

    assert summary.status is SummaryStatus.PRODUCED
    assert [(e.memory_id, e.confidence) for e in summary.hypotheses] == [("h1", 0.4)]
    assert [e.memory_id for e in summary.significant] == ["sister", "job"]
    # The least sure first, an inference before what the user said; significant not repeated.
    assert [e.memory_id for e in summary.assumptions][:2] == ["guess", "said"]
    assert "job" not in {e.memory_id for e in summary.assumptions}
    assert "march" not in {e.memory_id for e in summary.assumptions}
    assert [(e.kind, e.memory_id, e.other_id) for e in summary.tensions] == [
        (EntryKind.TENSION, "a", "b")
    ]
    counts = summary.counts
    assert counts is not None
    # 7 memories (no hypotheses) held by the end of February, 2 added in it: 7 + 2 - 7 = 2 gone.
    assert (counts.memories, counts.added, counts.forgotten) == (7, 2, 2)
    assert (counts.active_hypotheses, counts.open_tensions) == (1, 1)
    # Every entry names its memory id, so the user can correct or flag it.
    for entry in (*summary.hypotheses, *summary.significant, *summary.assumptions):
        assert f"[{entry.memory_id}] {entry.content}" in summary.text
    assert "[a] Loves running versus [b] Hates running" in summary.text


def test_forgotten_is_unknown_without_a_previous_summary() -> None:
    summary = plan([node("x", "Plays chess")])
    assert summary.counts is not None and summary.counts.forgotten is None
    assert "forgotten: unknown" not in summary.text and "unknown forgotten" in summary.text


def test_sizes_come_from_the_config() -> None:
    nodes = [node(f"n{i}", f"fact {i}", significant=True) for i in range(8)]
    summary = plan(nodes, config=SummaryConfig(significant=3, assumptions=2))
    assert len(summary.significant) == 3 and len(summary.assumptions) == 2


def test_russian_text_for_a_russian_user() -> None:
    summary = plan([node("x", "Сестра живёт в Порту")], language="ru")
    assert summary.text.startswith("Что я о вас помню: 2026-02")
    assert "[x] Сестра живёт в Порту" in summary.text


def test_language_is_the_profiles_else_the_memories() -> None:
    russian = [node(f"r{i}", "Я люблю шахматы и играю по четвергам") for i in range(3)]
    english = [node("e", "I play chess on Thursdays")]
    assert summary_language("de", russian) == "de"
    assert summary_language(None, russian + english) == "ru"
    assert summary_language(None, english) == "en"
    assert summary_language(None, []) == "en"
    # A language without words here still gets a summary, in English.
    assert plan([english[0]], language="de").text.startswith("What I remember about you")


def test_an_archived_user_gets_a_skipped_summary_that_says_why() -> None:
    summary = skipped_summary(
        "u1", "2026-02", UTC_ZONE, tier=Tier.COLD, produced_at=RUN, language="ru"
    )
    assert (summary.status, summary.skip_reason, summary.tier) == (
        SummaryStatus.SKIPPED, SkipReason.GRAPH_ARCHIVED, Tier.COLD,
    )  # fmt: skip
    assert summary.counts is None and summary.hypotheses == ()
    assert "cold" in summary.text and summary.text.startswith("Сводки за 2026-02 нет")


def test_a_summary_round_trips_through_json() -> None:
    summary = plan([node("x", "Plays chess", significant=True)])
    assert MonthlySummary.model_validate_json(summary.model_dump_json()) == summary
    with pytest.raises(ValidationError):
        MonthlySummary.model_validate({**summary.model_dump(), "month": "2026-2"})


def _quoting_summary(language: str = "en") -> MonthlySummary:
    nodes = [
        node("sister", "Sister Ana lives in Porto", significant=True, importance=0.9),
        node("therapist", "Sees a THERAPIST on Mondays", significant=True, importance=0.8),
        node("guess", "Probably likes jazz", confidence=0.2, inference=True),
        node("a", "Loves running", at=IN_FEB),
        node("b", "Hates running", at=IN_FEB),
    ]
    tensions = [Tension(id="t1", node_a="a", node_b="b", detected_at=IN_FEB)]
    return plan(nodes, tensions=tensions, language=language)


def test_a_deleted_memory_leaves_every_summary_entry_and_the_text() -> None:
    summary = _quoting_summary()
    assert "Sister Ana lives in Porto" in summary.text
    cleaned = without_entries(summary, {"sister", "b"})
    assert [e.memory_id for e in cleaned.significant] == ["therapist"]
    assert "sister" not in {e.memory_id for e in cleaned.assumptions}
    # A tension quotes both sides: deleting either takes the entry.
    assert cleaned.tensions == ()
    for gone in ("Sister Ana lives in Porto", "Hates running", "versus"):
        assert gone not in cleaned.text and gone not in cleaned.model_dump_json()
    assert "[therapist] Sees a THERAPIST on Mondays" in cleaned.text
    assert "[guess] Probably likes jazz" in cleaned.text
    # The rest is the summary as produced: counts (numbers, no words), dates, language.
    assert cleaned.model_copy(
        update={"significant": summary.significant, "assumptions": summary.assumptions,
                "tensions": summary.tensions, "text": summary.text}
    ) == summary  # fmt: skip
    assert cleaned.text == render_summary(cleaned)


def test_a_forgotten_topic_leaves_the_entries_that_say_it_in_the_users_language() -> None:
    summary = _quoting_summary("ru")
    cleaned = without_entries(summary, set(), "therapist")
    assert "THERAPIST" not in cleaned.text and "therapist" not in cleaned.model_dump_json()
    assert [e.memory_id for e in cleaned.significant] == ["sister"]
    assert cleaned.text.startswith("Что я о вас помню: 2026-02")
    # Either side of a tension saying the topic takes it.
    assert without_entries(summary, set(), "hates").tensions == ()


def test_a_summary_that_quotes_nothing_removed_is_left_as_it_is() -> None:
    summary = _quoting_summary()
    assert without_entries(summary, {"elsewhere"}, "chess") is summary
    skipped = skipped_summary(
        "u1", "2026-02", UTC_ZONE, tier=Tier.COLD, produced_at=RUN, language="en"
    )
    assert without_entries(skipped, {"sister"}, "Porto") is skipped
