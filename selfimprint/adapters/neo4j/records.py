"""Domain models <-> Neo4j properties, and the scope every stored thing carries.

Storage decisions (docs/graph-store.md):
- Datetimes are Neo4j DateTime values normalised to UTC: range indexes compare them, Cypher's
  date arithmetic works on them, and they round-trip to aware Python datetimes exactly.
- A node's belief metadata is flattened onto the node; hypothesis lifecycle data sits on the
  hypothesis node under `hypothesis_*` names.
- Vectors live in `embedding_<dim>` (float32, via db.create.setNodeVectorProperty) next to
  `embedding_model`, one vector index per dimension (a Neo4j vector index has one dimension),
  over the :IndexedMemory label only: users below the exact-scan threshold stay out of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import TypeAdapter

from selfimprint.domain.models import (
    Edge,
    EdgeType,
    Hypothesis,
    MemoryId,
    Node,
    NodeType,
    Tension,
)

# Dimensions that have a vector index (infra/neo4j/schema/0003_vector_indexes.cypher).
VECTOR_DIMENSIONS = (384, 1024)

_MEMORY_ID = TypeAdapter(MemoryId)
T = TypeVar("T")


def chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Bounded UNWIND batches (itertools.batched needs Python 3.12)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


class UnsupportedDimensionError(ValueError):
    def __init__(self, dimension: int) -> None:
        super().__init__(
            f"no vector index for {dimension}-dim embeddings (supported: {VECTOR_DIMENSIONS}); "
            "add one in infra/neo4j/schema/"
        )


def vector_property(dimension: int) -> str:
    if dimension not in VECTOR_DIMENSIONS:
        raise UnsupportedDimensionError(dimension)
    return f"embedding_{dimension}"


# Nodes of users big enough for the vector index carry this label too (schema 0030).
INDEXED_LABEL = "IndexedMemory"


def vector_index(dimension: int) -> str:
    return f"indexed_memory_{vector_property(dimension)}"


@dataclass(frozen=True)
class UserScope:
    """The (tenant, user) a store is bound to. Both parts are MemoryIds (no '/'), so the joined
    key is unambiguous; callers map arbitrary names with `domain.models.safe_id` first."""

    tenant_id: str
    user_id: str

    def __post_init__(self) -> None:
        _MEMORY_ID.validate_python(self.tenant_id)
        _MEMORY_ID.validate_python(self.user_id)

    @property
    def key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


# Type labels beside :Memory, so typed scans need no property filter.
TYPE_LABELS: dict[NodeType, str] = {
    NodeType.FACT: "Fact",
    NodeType.EVENT: "Event",
    NodeType.EMOTIONAL_NOTE: "EmotionalNote",
    NodeType.PERSON: "Person",
    NodeType.OPEN_LOOP: "OpenLoop",
    NodeType.HYPOTHESIS: "Hypothesis",
}
REL_TYPES: dict[EdgeType, str] = {t: t.value.upper() for t in EdgeType}
_EDGE_TYPES: dict[str, EdgeType] = {v: k for k, v in REL_TYPES.items()}

_NODE_SCALARS = (
    "id", "user_id", "type", "content", "valence", "importance", "weight", "weight_at",
    "created_at", "last_reinforced_at", "is_inference", "is_pinned", "decay_coefficient",
    "significant", "expires_at", "sources", "embedding_model",
)  # fmt: skip
_BELIEF_FIELDS = (
    "confidence", "permanence", "first_seen", "confirmed_at", "challenged_at", "evidence_kind",
    "confidence_at",
)  # fmt: skip
_HYPOTHESIS_FIELDS = (
    "status", "supporting", "contradicting", "reinforcements", "created_at", "deadline",
    "last_surfaced_at", "high_bar",
)  # fmt: skip
_VECTOR_FIELDS = tuple(f"embedding_{d}" for d in VECTOR_DIMENSIONS)
_NODE_FIELDS = _NODE_SCALARS + _BELIEF_FIELDS


def node_projection(var: str, *, with_vectors: bool = False) -> str:
    """A Cypher map projection of a node's model fields: returning `n {.*}` would ship every
    vector (1.5-4 KB each) to the read path, which never needs them."""
    fields = _NODE_FIELDS + (_VECTOR_FIELDS if with_vectors else ())
    return var + " {" + ", ".join(f".{f}" for f in fields) + "}"


HYPOTHESIS_PROJECTION = "n {" + ", ".join(f".hypothesis_{f}" for f in _HYPOTHESIS_FIELDS) + "}"


def utc(value: datetime | None) -> datetime | None:
    """Every datetime parameter goes to Neo4j with the UTC offset (never a named zone), so that
    equality with stored values compares instants."""
    return None if value is None else value.astimezone(UTC)


def _storable(value: Any) -> Any:
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "value"):  # enums
        return value.value
    return value


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    native = to_native() if to_native is not None else value
    # The driver hands back pytz's UTC; sent back as a parameter that becomes the *named* zone
    # "UTC", which Cypher's `=` does not equal to the stored offset-Z value of the same instant.
    if isinstance(native, datetime) and native.tzinfo is not None:
        return native.astimezone(UTC)
    return native


def node_row(node: Node) -> dict[str, Any]:
    """Parameters for one node in an UNWIND upsert; None values clear stored properties."""
    props = {f: _storable(getattr(node, f)) for f in _NODE_SCALARS if f not in {"id", "sources"}}
    props |= {f: _storable(getattr(node.belief, f)) for f in _BELIEF_FIELDS}
    return {
        "id": node.id,
        "label": TYPE_LABELS[node.type],
        "props": props,
        # dict.fromkeys: drop duplicates, keep first-seen order.
        "sources": list(dict.fromkeys(node.sources)),
        "embedding": list(node.embedding) if node.embedding is not None else None,
        "vector_property": vector_property(len(node.embedding)) if node.embedding else None,
    }


def node_from_record(raw: Mapping[str, Any]) -> Node:
    values = {k: _native(v) for k, v in raw.items()}
    vector = next((values[f] for f in _VECTOR_FIELDS if values.get(f) is not None), None)
    data = {f: values.get(f) for f in _NODE_SCALARS}
    data["sources"] = tuple(values.get("sources") or ())
    data["belief"] = {f: values.get(f) for f in _BELIEF_FIELDS}
    data["embedding"] = tuple(vector) if vector is not None else None
    if vector is None:
        data["embedding_model"] = None
    return Node.model_validate({k: v for k, v in data.items() if v is not None})


def edge_row(edge: Edge) -> dict[str, Any]:
    return {
        "source_id": edge.source_id,
        "target_id": edge.target_id,
        "type": REL_TYPES[edge.type],
        "props": {
            "confidence": edge.confidence,
            "is_inferred": edge.is_inferred,
            "created_at": utc(edge.created_at),
            "last_reinforced_at": utc(edge.last_reinforced_at),
        },
    }


EDGE_PROJECTION = (
    "{source_id: startNode(r).id, target_id: endNode(r).id, type: type(r), props: properties(r)}"
)


def edge_from_record(raw: Mapping[str, Any]) -> Edge:
    props = {k: _native(v) for k, v in raw["props"].items()}
    return Edge.model_validate(
        {
            "source_id": raw["source_id"],
            "target_id": raw["target_id"],
            "type": _EDGE_TYPES[raw["type"]],
            **{k: v for k, v in props.items() if v is not None},
        }
    )


def hypothesis_row(hypothesis: Hypothesis) -> dict[str, Any]:
    return {
        "id": hypothesis.node_id,
        "props": {f"hypothesis_{f}": _storable(getattr(hypothesis, f)) for f in _HYPOTHESIS_FIELDS},
    }


def hypothesis_from_record(node_id: str, raw: Mapping[str, Any]) -> Hypothesis:
    data = {f: _native(raw.get(f"hypothesis_{f}")) for f in _HYPOTHESIS_FIELDS}
    for many in ("supporting", "contradicting"):
        data[many] = tuple(data[many] or ())
    data["node_id"] = node_id
    return Hypothesis.model_validate({k: v for k, v in data.items() if v is not None})


def tension_row(tension: Tension) -> dict[str, Any]:
    return {
        "id": tension.id,
        "props": {
            "node_a": tension.node_a,
            "node_b": tension.node_b,
            "detected_at": utc(tension.detected_at),
            "status": tension.status.value,
            "note": tension.note,
        },
    }


TENSION_PROJECTION = "t {.id, .node_a, .node_b, .detected_at, .status, .note}"


def tension_from_record(raw: Mapping[str, Any]) -> Tension:
    return Tension.model_validate({k: _native(v) for k, v in raw.items()})
