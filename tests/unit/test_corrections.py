from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.corrections import MemoryCorrection, apply_correction
from selfimprint.domain.decay import node_effective_weight
from selfimprint.domain.models import Belief, EvidenceKind, Node, NodeType

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def fact(**kw: object) -> Node:
    base: dict[str, object] = {
        "id": "n1",
        "user_id": "u1",
        "type": NodeType.FACT,
        "content": "Works at Initech.",
        "weight": 1.0,
        "weight_at": T0,
        "created_at": T0,
        "decay_coefficient": 0.92,
        "sources": ("m1",),
        "belief": Belief(first_seen=T0, evidence_kind=EvidenceKind.OBSERVED, confidence=0.6),
        "embedding": (1.0, 0.0),
        "embedding_model": "e5",
    }
    return Node.model_validate(base | kw)


def test_pinning_stops_decay_from_the_current_weight() -> None:
    now = T0 + timedelta(days=10)
    pinned = apply_correction(fact(), MemoryCorrection(pinned=True), now)
    assert pinned.is_pinned and pinned.decay_coefficient == 1.0
    assert pinned.expires_at is None
    assert pinned.weight == pytest.approx(0.92**10)
    later = now + timedelta(days=365)
    assert node_effective_weight(pinned, later) == pytest.approx(pinned.weight)


def test_unpinning_restores_the_type_curve() -> None:
    now = T0 + timedelta(days=3)
    pinned = apply_correction(fact(), MemoryCorrection(pinned=True), now)
    unpinned = apply_correction(pinned, MemoryCorrection(pinned=False), now + timedelta(days=30))
    assert unpinned.decay_coefficient == 0.92 and unpinned.expires_at is not None


def test_corrected_content_is_a_confirmed_self_report_with_a_new_vector() -> None:
    now = T0 + timedelta(days=1)
    fixed = apply_correction(
        fact(),
        MemoryCorrection(content="Works at Initrode."),
        now,
        embedding=(0.0, 1.0),
        embedding_model="e5",
    )
    assert fixed.content == "Works at Initrode." and fixed.embedding == (0.0, 1.0)
    assert fixed.belief.evidence_kind is EvidenceKind.SELF_REPORT
    assert fixed.belief.confirmed_at == now and fixed.belief.confidence == 0.95
    assert fixed.sources == ("m1",)  # why it exists does not change


def test_new_content_without_its_embedding_is_refused() -> None:
    with pytest.raises(ValueError, match="embedding"):
        apply_correction(fact(), MemoryCorrection(content="Something else."), T0)


def test_marking_wrong_zeroes_confidence_and_records_the_challenge() -> None:
    wrong = apply_correction(fact(), MemoryCorrection(wrong=True), T0 + timedelta(hours=1))
    assert wrong.belief.confidence == 0.0
    assert wrong.belief.challenged_at == T0 + timedelta(hours=1)


def test_corrected_content_drops_its_reply_context_and_a_pin_keeps_it() -> None:
    replied = fact(context_embedding=(0.6, 0.8), context_terms=("employer",))
    now = T0 + timedelta(days=1)
    fixed = apply_correction(
        replied,
        MemoryCorrection(content="Works at Initrode."),
        now,
        embedding=(0.0, 1.0),
        embedding_model="e5",
    )
    # Its vector read the old words after the message they replied to.
    assert fixed.context_embedding is None and fixed.context_terms == ()
    pinned = apply_correction(replied, MemoryCorrection(pinned=True), now)
    assert pinned.context_embedding == (0.6, 0.8) and pinned.context_terms == ("employer",)
