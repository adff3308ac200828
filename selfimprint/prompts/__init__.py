"""Prompt builders: pure functions context -> chat messages, each next to the pydantic model of its
JSON answer (DESIGN.md §2). The answer models derive from `LLMAnswer`, whose JSON schema is what
the LLM adapter sends as a `json_schema` response_format.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict

_DEFS_PREFIX = "#/$defs/"


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local `$ref` replaced by its definition and `$defs` removed.

    Grammar-based decoders (llama.cpp's json-schema-to-grammar, vLLM's backends) differ in how
    well they follow references; a self-contained schema is read the same way by all of them.
    Recursive definitions cannot be inlined and raise ValueError.
    """
    definitions: dict[str, Any] = schema.get("$defs", {})

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith(_DEFS_PREFIX):
                raise ValueError(f"only local $defs references can be inlined, not {ref!r}")
            name = ref.removeprefix(_DEFS_PREFIX)
            if name in seen:
                raise ValueError(f"recursive schema definition {name!r} cannot be inlined")
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            target = resolve(copy.deepcopy(definitions[name]), (*seen, name))
            return {**target, **resolve(siblings, seen)}
        return {key: resolve(value, seen) for key, value in node.items() if key != "$defs"}

    resolved: dict[str, Any] = resolve(schema, ())
    return resolved


class LLMAnswer(BaseModel):
    """Base of every answer model: strict, immutable, and a schema without references."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return inline_refs(super().model_json_schema(*args, **kwargs))
