"""When two statements are "the same content", and the deterministic ids that follow from it:
the same user, messages, type and content always give the same memory id, so a retried
extraction writes the same nodes; a pair of memories always gives the same tension id."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence


def normalise_content(content: str) -> str:
    """What "the same content" means for ids: NFKC, case and whitespace folded, end punctuation
    dropped."""
    folded = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    return folded.rstrip(".!?…。 ")


def _digest(*parts: str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\x00")
    return hasher.hexdigest()[:32]


def memory_id(user_id: str, sources: Sequence[str], node_type: str, content: str) -> str:
    """Deterministic node id: the same user, messages, type and content give the same id."""
    return "m-" + _digest(user_id, *sorted(sources), node_type, normalise_content(content))


def tension_id(user_id: str, node_a: str, node_b: str) -> str:
    return "t-" + _digest(user_id, *sorted((node_a, node_b)))
