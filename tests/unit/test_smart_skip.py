"""Smart skip (spec §3.6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Node,
    NodeType,
    Tension,
    TensionStatus,
    Valence,
)
from selfimprint.domain.smart_skip import (
    SkipDecision,
    SkipFeatures,
    SkipVerdict,
    SmartSkipPolicy,
    as_one_sentence,
    decide,
    decide_after_llm,
    skip_features,
)

pytestmark = pytest.mark.unit

LAST_SLEEP = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
BEFORE, AFTER = LAST_SLEEP - timedelta(days=2), LAST_SLEEP + timedelta(hours=5)
POLICY = SmartSkipPolicy()


def node(
    nid: str,
    kind: NodeType,
    created: datetime,
    *,
    reinforced: datetime | None = None,
    significant: bool = False,
) -> Node:
    return Node(
        id=nid,
        user_id="u1",
        type=kind,
        content=f"memory {nid}",
        valence=Valence.NEGATIVE if kind is NodeType.EMOTIONAL_NOTE else None,
        weight_at=created,
        created_at=created,
        last_reinforced_at=reinforced,
        significant=significant,
        belief=Belief(first_seen=created),
    )


def test_no_new_messages_skips_with_a_summary() -> None:
    d = decide(SkipFeatures(new_messages=0, contradictions=2))
    assert d.verdict is SkipVerdict.SKIP
    assert d.summary == "Sleep skipped: no new messages since the last sleep."


@pytest.mark.parametrize(
    ("signal", "name"),
    [
        ("emotional_notes", "emotional signal"),
        ("significant_events", "significant event"),
        ("open_loops", "open loop"),
        ("contradictions", "possible contradiction"),
    ],
)
def test_any_signal_runs_the_pass(signal: str, name: str) -> None:
    d = decide(SkipFeatures.model_validate({"new_messages": 2, signal: 1}))
    assert d.verdict is SkipVerdict.RUN and d.summary is None
    assert d.reason == f"2 new messages: 1 {name}"


@pytest.mark.parametrize(
    ("messages", "verdict"),
    [
        (1, SkipVerdict.SKIP),
        (3, SkipVerdict.SKIP),  # a couple of technical questions and goodbye
        (4, SkipVerdict.ASK_LLM),
        (19, SkipVerdict.ASK_LLM),
        (20, SkipVerdict.RUN),
        (500, SkipVerdict.RUN),
    ],
)
def test_without_signals_the_message_count_decides(messages: int, verdict: SkipVerdict) -> None:
    assert decide(SkipFeatures(new_messages=messages)).verdict is verdict


def test_a_trivial_session_gets_a_one_sentence_summary() -> None:
    d = decide(SkipFeatures(new_messages=1))
    assert d.summary == (
        "Sleep skipped: 1 new message since the last sleep, with no emotional signal, "
        "significant event, open loop, possible contradiction or upcoming event."
    )


def test_the_llm_answer_becomes_the_final_decision() -> None:
    features = SkipFeatures(new_messages=8)
    assert decide_after_llm(features, worth_reasoning=True).verdict is SkipVerdict.RUN
    d = decide_after_llm(features, False, "  Two questions about\nSQL joins. Then goodbye. ")
    assert d.verdict is SkipVerdict.SKIP and d.summary == "Two questions about SQL joins."
    blank = decide_after_llm(features, False, "   ")
    assert blank.summary is not None and blank.summary.startswith("Sleep skipped: 8 new messages")


def test_one_sentence_handles_other_languages_and_long_text() -> None:
    assert as_one_sentence("Пользователь спросил про SQL. Потом попрощался.") == (
        "Пользователь спросил про SQL."
    )
    assert as_one_sentence("Wait… what? Fine!") == "Wait…"
    long = as_one_sentence("word " * 100, max_chars=40)
    assert len(long) == 40 and long.endswith("…")
    assert as_one_sentence("v1.2 is out") == "v1.2 is out"  # no split inside a token


def test_only_a_skip_carries_a_summary() -> None:
    with pytest.raises(ValidationError):
        SkipDecision(verdict=SkipVerdict.SKIP, reason="x")
    with pytest.raises(ValidationError):
        SkipDecision(verdict=SkipVerdict.RUN, reason="x", summary="y")
    with pytest.raises(ValidationError):
        SmartSkipPolicy(trivial_messages=20, run_at_messages=20)


def test_features_count_only_what_changed_since_the_last_sleep() -> None:
    nodes = [
        node("e1", NodeType.EMOTIONAL_NOTE, AFTER),
        node("e2", NodeType.EMOTIONAL_NOTE, BEFORE),  # old, untouched
        node("v1", NodeType.EVENT, AFTER, significant=True),
        node("v2", NodeType.EVENT, AFTER),  # not significant
        node("l1", NodeType.OPEN_LOOP, BEFORE, reinforced=AFTER),  # mentioned again
        node("f1", NodeType.FACT, AFTER),
    ]
    edges = [
        Edge(source_id="f1", target_id="e2", type=EdgeType.CONTRADICTS, created_at=AFTER),
        Edge(source_id="f1", target_id="v1", type=EdgeType.CONTRADICTS, created_at=BEFORE),
        Edge(source_id="f1", target_id="v2", type=EdgeType.CAUSED_BY, created_at=AFTER),
    ]
    tensions = [
        Tension(id="t1", node_a="f1", node_b="e1", detected_at=AFTER),
        Tension(
            id="t2", node_a="f1", node_b="v1", detected_at=AFTER, status=TensionStatus.RESOLVED
        ),
    ]
    got = skip_features(5, nodes, edges, tensions, since=LAST_SLEEP)
    assert got == SkipFeatures(
        new_messages=5, emotional_notes=1, significant_events=1, open_loops=1, contradictions=2
    )
    first = skip_features(5, nodes, edges, tensions, since=None)
    assert (first.emotional_notes, first.contradictions) == (2, 3)


# --- properties -------------------------------------------------------------------------------

_counts = st.integers(0, 5)
_features = st.builds(
    SkipFeatures,
    new_messages=st.integers(0, 60),
    emotional_notes=_counts,
    significant_events=_counts,
    open_loops=_counts,
    contradictions=_counts,
)


@given(features=_features)
def test_every_decision_is_consistent(features: SkipFeatures) -> None:
    d = decide(features)
    if features.new_messages == 0:
        assert d.verdict is SkipVerdict.SKIP
    elif features.signals():
        assert d.verdict is SkipVerdict.RUN
    if d.summary is not None:
        assert "\n" not in d.summary and d.summary.endswith(".")
        assert len(d.summary) <= POLICY.summary_max_chars


@given(features=_features, extra=st.integers(0, 60))
def test_more_messages_never_make_a_pass_less_likely(features: SkipFeatures, extra: int) -> None:
    rank = [SkipVerdict.SKIP, SkipVerdict.ASK_LLM, SkipVerdict.RUN]
    more = features.model_copy(update={"new_messages": features.new_messages + extra})
    assert rank.index(decide(more).verdict) >= rank.index(decide(features).verdict)


@given(text=st.text(max_size=400), limit=st.integers(20, 300))
def test_one_sentence_is_short_single_line_and_stable(text: str, limit: int) -> None:
    once = as_one_sentence(text, limit)
    assert len(once) <= limit and "\n" not in once
    assert as_one_sentence(once, limit) == once


def test_an_event_naming_a_day_to_come_is_a_signal() -> None:
    said = LAST_SLEEP + timedelta(hours=2)
    coming = Node(
        id="e",
        user_id="u",
        type=NodeType.EVENT,
        content="My knee surgery is the day after tomorrow.",
        weight_at=said,
        created_at=said,
        sources=("m1",),
        belief=Belief(first_seen=said),
    )
    past = coming.model_copy(update={"id": "p", "content": "The surgery went fine yesterday."})
    assert skip_features(1, [coming], since=LAST_SLEEP).upcoming_events == 1
    assert skip_features(1, [past], since=LAST_SLEEP).upcoming_events == 0
    assert decide(skip_features(1, [coming], since=LAST_SLEEP)).verdict is SkipVerdict.RUN
