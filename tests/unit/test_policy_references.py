"""The inference policy's semantic second opinion (issue 33): the margin scores and the packaged
references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfimprint.domain.inference_lexicon import Category
from selfimprint.domain.inference_policy import PolicyClass
from selfimprint.domain.policy_references import (
    CALIBRATED_EMBEDDER,
    PolicyReference,
    references,
    scores_as_categories,
    semantic_opinion_for,
    semantic_scores,
)

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[1] / "data"

CRIME = PolicyReference("was in prison", PolicyClass.NEVER_INFER, Category.CRIMINAL_HISTORY)
GOAL = PolicyReference("wants to be a doctor", PolicyClass.HIGH_BAR, Category.LONG_TERM_GOAL)
CHESS = PolicyReference("plays chess", PolicyClass.ALLOWED, None)


def test_a_score_is_the_margin_over_the_nearest_less_strict_statement() -> None:
    embedded = [(CRIME, (1.0, 0.0, 0.0)), (GOAL, (0.0, 1.0, 0.0)), (CHESS, (0.6, 0.8, 0.0))]
    scores = semantic_scores((1.0, 0.0, 0.0), embedded)
    # Crime: 1.0 to its own, 0.6 to the nearest high-bar or allowed one (chess).
    assert scores[Category.CRIMINAL_HISTORY] == pytest.approx(0.4)
    # The goal (high bar) against allowed only: 0.0 - 0.6.
    assert scores[Category.LONG_TERM_GOAL] == pytest.approx(-0.6)
    assert set(scores) == {Category.CRIMINAL_HISTORY, Category.LONG_TERM_GOAL}


def test_without_a_less_strict_reference_a_category_gets_no_score() -> None:
    assert semantic_scores((1.0, 0.0), [(CRIME, (1.0, 0.0))]) == {}


def test_the_packaged_references_are_the_labelled_dev_split() -> None:
    dev = [
        (r["text"], r["expected"], r["category"])
        for language in ("en", "ru")
        for line in (DATA / f"inference_policy_{language}.jsonl").read_text("utf-8").splitlines()
        if line.strip() and (r := json.loads(line))["split"] == "dev"
    ]
    packaged = [
        (r.text, r.policy_class.value, r.category.value if r.category else None)
        for r in references()
    ]
    assert packaged == dev  # refresh: scripts/calibrate_policy_semantic.py --write-references


def test_only_the_calibrated_embedder_gets_a_second_opinion() -> None:
    assert semantic_opinion_for(CALIBRATED_EMBEDDER)
    assert not semantic_opinion_for("BAAI/bge-m3")
    assert not semantic_opinion_for(None)


def test_scores_by_name_come_back_as_categories_and_unknown_names_drop() -> None:
    raw = {"criminal_history": 0.05, "astrology": 0.9, "political_views": float("nan")}
    assert scores_as_categories(raw) == {Category.CRIMINAL_HISTORY: 0.05}
