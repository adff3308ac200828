"""What resolving a tension writes (domain.tensions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from selfimprint.domain.belief import effective_confidence
from selfimprint.domain.models import Belief, EvidenceKind, Node, NodeType, Tension, TensionStatus
from selfimprint.domain.tensions import (
    Keep,
    RecordedResolution,
    TensionAlreadyResolvedError,
    TensionResolution,
    is_repeat,
    plan_resolution,
)

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=20)


def memory(node_id: str, content: str, created: datetime) -> Node:
    return Node.model_validate(
        {
            "id": node_id,
            "user_id": "u1",
            "type": NodeType.FACT,
            "content": content,
            "weight": 1.0,
            "weight_at": created,
            "created_at": created,
            "decay_coefficient": 0.92,
            "sources": (f"msg-{node_id}",),
            "belief": Belief(first_seen=created, evidence_kind=EvidenceKind.SELF_REPORT),
        }
    )


NEWER = memory("m-new", "I quit Initech.", T0 + timedelta(days=10))
OLDER = memory("m-old", "I work at Initech.", T0)
TENSION = Tension(id="t-1", node_a=NEWER.id, node_b=OLDER.id, detected_at=NEWER.created_at)
SIDES = {NEWER.id: NEWER, OLDER.id: OLDER}


def test_keeping_the_newer_side_refutes_the_older_and_vouches_for_the_newer() -> None:
    writes = plan_resolution(
        TENSION, TensionResolution(keep=Keep.A, note="left in May"), SIDES, NOW
    )
    assert writes.tension.status is TensionStatus.RESOLVED
    assert writes.tension.note == "left in May"
    assert writes.recorded == RecordedResolution(keep=Keep.A, resolved_at=NOW)
    assert writes.refuted_ids == (OLDER.id,)
    by_id = {n.id: n for n in writes.nodes}
    wrong, kept = by_id[OLDER.id], by_id[NEWER.id]
    # As PATCH wrong=true: no confidence left, challenged now.
    assert wrong.belief.confidence == 0.0 and wrong.belief.challenged_at == NOW
    # The user's word is one self-report in favour, recorded once (its id names the tension).
    assert kept.belief.confidence > effective_confidence(NEWER.belief, NOW)
    assert kept.belief.self_report_for == ("t-1:kept",)
    assert kept.content == NEWER.content and kept.sources == NEWER.sources


def test_keeping_the_older_side_refutes_the_newer() -> None:
    writes = plan_resolution(TENSION, TensionResolution(keep=Keep.B), SIDES, NOW)
    assert writes.refuted_ids == (NEWER.id,)
    assert {n.id for n in writes.nodes} == {NEWER.id, OLDER.id}


def test_the_kept_side_is_current_again_if_the_contradiction_had_ended_it() -> None:
    """Issue 33: the contradiction ended the older memory's validity; the user says it holds."""
    ended = OLDER.model_copy(update={"valid_until": NEWER.created_at})
    sides = {NEWER.id: NEWER, OLDER.id: ended}
    writes = plan_resolution(TENSION, TensionResolution(keep=Keep.B), sides, NOW)
    assert {n.id: n.valid_until for n in writes.nodes}[OLDER.id] is None
    both = plan_resolution(TENSION, TensionResolution(keep=Keep.BOTH), sides, NOW)
    assert both.nodes == ()  # each was true at its own time: the end stays


def test_keeping_both_only_records_the_resolution() -> None:
    writes = plan_resolution(TENSION, TensionResolution(keep=Keep.BOTH), SIDES, NOW)
    assert writes.tension.status is TensionStatus.RESOLVED
    assert writes.nodes == () and writes.refuted_ids == ()


def test_a_side_already_gone_is_not_written() -> None:
    writes = plan_resolution(TENSION, TensionResolution(keep=Keep.A), {NEWER.id: NEWER}, NOW)
    assert writes.refuted_ids == () and [n.id for n in writes.nodes] == [NEWER.id]


def test_the_same_answer_again_is_a_repeat_and_another_is_refused() -> None:
    answer = TensionResolution(keep=Keep.A, note="left")
    assert not is_repeat(TENSION, None, answer)
    writes = plan_resolution(TENSION, answer, SIDES, NOW)
    assert is_repeat(writes.tension, writes.recorded, answer)
    with pytest.raises(TensionAlreadyResolvedError):
        is_repeat(writes.tension, writes.recorded, TensionResolution(keep=Keep.B, note="left"))
    with pytest.raises(TensionAlreadyResolvedError):
        is_repeat(writes.tension, writes.recorded, TensionResolution(keep=Keep.A, note="other"))
    # Resolved without a recorded answer (e.g. before this API): any answer is a conflict.
    with pytest.raises(TensionAlreadyResolvedError):
        is_repeat(writes.tension, None, answer)


def test_a_resolution_needs_a_known_side_and_nothing_else() -> None:
    with pytest.raises(ValidationError):
        TensionResolution.model_validate({"keep": "c"})
    with pytest.raises(ValidationError):
        TensionResolution.model_validate({"keep": "a", "extra": 1})
    with pytest.raises(ValidationError):
        TensionResolution.model_validate({"note": "x"})
