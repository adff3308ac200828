"""Domain models <-> Neo4j properties, and the scope every stored thing carries.

Storage decisions (docs/graph-store.md):
- Datetimes are Neo4j DateTime values normalised to UTC: range indexes compare them, Cypher's
  date arithmetic works on them, and they round-trip to aware Python datetimes exactly.
- A node's belief metadata is flattened onto the node; hypothesis lifecycle data sits on the
  hypothesis node under `hypothesis_*` names.
- Vectors live in `embedding_<dim>` (float32, via db.create.setNodeVectorProperty) next to
  `embedding_model`, one vector index per dimension (a Neo4j vector index has one dimension),
  over the :IndexedMemory label only: users below the exact-scan threshold stay out of it.
  A memory's reply-context vector (domain.reply_context) lives in `context_embedding_<dim>`,
  same model, with its own vector index over :IndexedMemory (the context read path asks both).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pydantic import TypeAdapter

from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    MemoryId,
    Node,
    NodeType,
    Tension,
)
from selfimprint.domain.terms import search_terms

# Dimensions that have a vector index (infra/neo4j/schema/0003_vector_indexes.cypher).
VECTOR_DIMENSIONS = (384, 1024)

_MEMORY_ID = TypeAdapter(MemoryId)
T = TypeVar("T")


def chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Bounded UNWIND batches (itertools.batched needs Python 3.12)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Rows(list[Any]):
    """A list parameter with a short repr. The driver (6.4) formats every RUN's parameters for
    its debug log before checking the log level: for a 1,000-node upsert that repr of 384k
    floats was ~250 ms of client CPU, a third of the write (docs/decisions.md, "Graph store:
    what an upsert cost")."""

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


# Instants travel as plain numbers and become DateTimes inside Neo4j: the driver converts each
# datetime parameter and each DateTime it reads in pure Python (~25 us apiece), and a node has
# eight of them, which made datetime conversion the largest cost of an upsert.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def epoch_parts(value: datetime) -> list[int]:
    """[whole seconds, nanoseconds] since the epoch, floor-divided like Java's Instant."""
    seconds, micros = divmod((value - _EPOCH) // _MICROSECOND, 1_000_000)
    return [seconds, micros * 1_000]


def from_epoch_micros(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


def set_times(var: str) -> str:
    """Cypher: set `row.times` ({name: epoch_parts}) on `var` as UTC DateTimes."""
    return (
        f"FOREACH (k IN keys(row.times) | SET {var}[k] = datetime("
        "{epochSeconds: row.times[k][0], nanosecond: row.times[k][1]}))"
    )


def epoch_micros(expr: str) -> str:
    """Cypher: the DateTime `expr` as integer microseconds since the epoch (null stays null).
    From epochMillis, which floors; epochSeconds truncates towards zero, so it is one second
    off before 1970."""
    return f"{expr}.epochMillis * 1000 + {expr}.nanosecond / 1000 % 1000"


def split_times(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """Props without their set instants, and those instants as epoch parts; a None instant
    stays in props, where it clears the stored value."""
    times = {k: epoch_parts(v) for k, v in props.items() if isinstance(v, datetime)}
    return {k: v for k, v in props.items() if k not in times}, times


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


def context_vector_property(dimension: int) -> str:
    return f"context_{vector_property(dimension)}"


def context_vector_index(dimension: int) -> str:
    return f"indexed_memory_{context_vector_property(dimension)}"


# Nodes of users big enough for the vector index carry this label too (schema 0030).
INDEXED_LABEL = "IndexedMemory"


def vector_index(dimension: int) -> str:
    return f"indexed_memory_{vector_property(dimension)}"


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
    "significant", "expires_at", "sources", "embedding_model", "context_terms", "valid_until",
    "recalled_at",
)  # fmt: skip
_BELIEF_FIELDS = (
    "confidence", "permanence", "first_seen", "confirmed_at", "challenged_at", "evidence_kind",
    "confidence_at", "observed_for", "observed_against", "self_report_for", "self_report_against",
)  # fmt: skip
_HYPOTHESIS_FIELDS = (
    "status", "supporting", "contradicting", "reinforcements", "created_at", "deadline",
    "last_surfaced_at", "high_bar", "model_supported",
)  # fmt: skip
_VECTOR_FIELDS = tuple(f"embedding_{d}" for d in VECTOR_DIMENSIONS)
CONTEXT_VECTOR_FIELDS = tuple(f"context_embedding_{d}" for d in VECTOR_DIMENSIONS)
_NODE_FIELDS = _NODE_SCALARS + _BELIEF_FIELDS
# The node fields that hold instants: read back as epoch microseconds (see `epoch_micros`).
_NODE_TIMES = frozenset(
    {"weight_at", "created_at", "last_reinforced_at", "expires_at", "valid_until", "recalled_at"}
    | {"first_seen", "confirmed_at", "challenged_at", "confidence_at"}
)
_EDGE_TIMES = ("created_at", "last_reinforced_at")


def node_projection(var: str, *, with_vectors: bool = False) -> str:
    """A Cypher map projection of a node's model fields: returning `n {.*}` would ship every
    vector (1.5-4 KB each) to the read path, which never needs them."""
    fields = _NODE_FIELDS + (_VECTOR_FIELDS + CONTEXT_VECTOR_FIELDS if with_vectors else ())
    items = (f"{f}: {epoch_micros(f'{var}.{f}')}" if f in _NODE_TIMES else f".{f}" for f in fields)
    return var + " {" + ", ".join(items) + "}"


HYPOTHESIS_PROJECTION = "n {" + ", ".join(f".hypothesis_{f}" for f in _HYPOTHESIS_FIELDS) + "}"


def utc(value: datetime | None) -> datetime | None:
    """Every datetime parameter goes to Neo4j with the UTC offset (never a named zone), so that
    equality with stored values compares instants."""
    return None if value is None else value.astimezone(UTC)


def storable(value: Any) -> Any:
    """A model value as a Neo4j property: UTC datetimes, lists, enum values."""
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


def belief_properties(belief: Belief) -> dict[str, Any]:
    """A belief's stored properties, flat on its node, with the derived `evidenced` flag that
    retrieval tests before computing the confidence factor (retrieval.py): every write of a
    belief (whole nodes, restatements, contradictions) goes through here, so the flag cannot
    lag behind the evidence lists."""
    props = {f: storable(getattr(belief, f)) for f in _BELIEF_FIELDS}
    props["evidenced"] = belief.evidenced
    return props


def node_row(node: Node) -> dict[str, Any]:
    """Parameters for one node in an UNWIND upsert; None values clear stored properties."""
    props = {f: storable(getattr(node, f)) for f in _NODE_SCALARS if f not in {"id", "sources"}}
    props |= belief_properties(node.belief)
    # What retrieval matches a query's words against (retrieval.py, lexical relevance).
    props["terms"] = list(search_terms(node.content))
    if node.embedding is not None and node.context_embedding is None:
        # A node written with its vectors and no reply context (a corrected content): a stored
        # context vector would read the old content. A node read without vectors keeps both.
        props |= dict.fromkeys(CONTEXT_VECTOR_FIELDS)
    props, times = split_times(props)
    return {
        "id": node.id,
        "label": TYPE_LABELS[node.type],
        "props": props,
        "times": times,
        # dict.fromkeys: drop duplicates, keep first-seen order.
        "sources": list(dict.fromkeys(node.sources)),
        "embedding": list(node.embedding) if node.embedding is not None else None,
        "vector_property": vector_property(len(node.embedding)) if node.embedding else None,
        "context_embedding": (
            list(node.context_embedding) if node.context_embedding is not None else None
        ),
        "context_vector_property": (
            context_vector_property(len(node.context_embedding)) if node.context_embedding else None
        ),
    }


def _instant(name: str, value: Any) -> Any:
    if name in _NODE_TIMES and isinstance(value, int):
        return from_epoch_micros(value)
    return _native(value)


def node_from_record(raw: Mapping[str, Any]) -> Node:
    values = {k: _instant(k, v) for k, v in raw.items()}
    vector = next((values[f] for f in _VECTOR_FIELDS if values.get(f) is not None), None)
    data = {f: values.get(f) for f in _NODE_SCALARS}
    data["sources"] = tuple(values.get("sources") or ())
    # A property never written (evidence lists on memories stored before they existed) is absent.
    data["belief"] = {f: values[f] for f in _BELIEF_FIELDS if values.get(f) is not None}
    data["embedding"] = tuple(vector) if vector is not None else None
    context = next((values[f] for f in CONTEXT_VECTOR_FIELDS if values.get(f) is not None), None)
    data["context_embedding"] = tuple(context) if context is not None else None
    data["context_terms"] = tuple(values.get("context_terms") or ())
    if vector is None:
        data["embedding_model"] = None
        data["context_embedding"] = None
    return Node.model_validate({k: v for k, v in data.items() if v is not None})


def edge_row(edge: Edge) -> dict[str, Any]:
    props, times = split_times(
        {
            "confidence": edge.confidence,
            "is_inferred": edge.is_inferred,
            "created_at": utc(edge.created_at),
            "last_reinforced_at": utc(edge.last_reinforced_at),
        }
    )
    return {
        "source_id": edge.source_id,
        "target_id": edge.target_id,
        "type": REL_TYPES[edge.type],
        "props": props,
        "times": times,
    }


EDGE_PROJECTION = (
    "{source_id: startNode(r).id, target_id: endNode(r).id, type: type(r), "
    # coalesce: a missing property reads as the model's default, as properties(r) left it out.
    "props: r {confidence: coalesce(r.confidence, 1.0), "
    "is_inferred: coalesce(r.is_inferred, false), "
    + ", ".join(f"{f}: {epoch_micros(f'r.{f}')}" for f in _EDGE_TIMES)
    + "}}"
)


def edge_from_record(raw: Mapping[str, Any]) -> Edge:
    props = {
        k: from_epoch_micros(v) if k in _EDGE_TIMES and isinstance(v, int) else _native(v)
        for k, v in raw["props"].items()
    }
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
        "props": {f"hypothesis_{f}": storable(getattr(hypothesis, f)) for f in _HYPOTHESIS_FIELDS},
    }


def hypothesis_from_record(node_id: str, raw: Mapping[str, Any]) -> Hypothesis:
    data = {f: _native(raw.get(f"hypothesis_{f}")) for f in _HYPOTHESIS_FIELDS}
    for many in ("supporting", "contradicting", "model_supported"):
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
            "resolved_keep": tension.resolved_keep.value if tension.resolved_keep else None,
            "resolved_at": utc(tension.resolved_at) if tension.resolved_at else None,
            "a_said": tension.a_said,
            "b_said": tension.b_said,
            "kind": tension.kind.value,
        },
    }


TENSION_PROJECTION = (
    "t {.id, .node_a, .node_b, .detected_at, .status, .note, .resolved_keep, .resolved_at, "
    "a_said: coalesce(t.a_said, ''), b_said: coalesce(t.b_said, ''), "
    "kind: coalesce(t.kind, 'contradiction')}"
)


def tension_from_record(raw: Mapping[str, Any]) -> Tension:
    return Tension.model_validate({k: _native(v) for k, v in raw.items()})
