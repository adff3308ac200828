"""Contradictions read from the older memory and the message together (issue 34).

The rules (`slots.contradicted`) read a change where their words are, and the change head reads
one from the message alone; both miss what new writers say in words no earlier writer used
("canned the rotto trip", "последний рабочий день в Альтаире"). A pair reader
(`adapters.contradiction_reader`) reads each (older memory, message) pair as one text and gives
the probability that the message says the memory no longer holds. It reads a message where the
change head gives some change at least `pair_gate` (a pair costs ~10 ms with the texts' lower
states kept; on the dev writers the gate lets about a third of messages through and keeps ~95 %
of those that contradict), against at most `pair_memories` of the older facts, events and open
loops (those sharing the most words with it first), and names the memories it reads at
`pair_likely` or above, beside those the rules name. A line said earlier in the same batch is
left to the rules (the reader was trained on older memories).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from selfimprint.domain.models import NodeType
from selfimprint.domain.terms import read

# The older memories a pair reader reads: those that hold a state or a plan. Of the 114 train
# writers' 1,895 contradicted memories, 1,884 are facts, events or open loops; feelings and
# people are not read.
PAIRED_TYPES = frozenset({NodeType.FACT, NodeType.EVENT, NodeType.OPEN_LOOP})


class PairReader(Protocol):
    def contradiction_odds(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """For each (older memory, message), the probability that the message says the memory
        no longer holds."""
        ...


def most_related(text: str, older: Sequence[tuple[str, str]], limit: int) -> list[tuple[str, str]]:
    """The `limit` older (id, content) memories that share the most content words with `text`,
    in the order given where they share as many (the stack gives the latest first): the reader
    costs ~10 ms a pair, and a memory a message changes is most often one it names."""
    words = read(text).stems
    shared = [len(words & read(content).stems) for _, content in older]
    ranked = sorted(range(len(older)), key=lambda i: -shared[i])
    return [older[i] for i in sorted(ranked[:limit])]


def read_contradictions(
    text: str,
    older: Sequence[tuple[str, str]],
    reader: PairReader,
    *,
    likely: float,
) -> tuple[str, ...]:
    """Ids of the older (id, content) memories the reader reads `text` as contradicting with at
    least `likely`, in their order."""
    if not older:
        return ()
    odds = reader.contradiction_odds([(content, text) for _, content in older])
    return tuple(ref for (ref, _), p in zip(older, odds, strict=True) if p >= likely)


def paired_contradictions(
    text: str,
    older: Sequence[tuple[str, str, NodeType]],
    reader: PairReader,
    *,
    change: float | None,
    gate: float,
    likely: float,
    limit: int,
) -> tuple[str, ...]:
    """Ids of the older (id, content, type) memories the reader reads `text` as contradicting,
    as the extractor serves it: only where the change head's `change` (None: no head or no
    vector, so no reading) reaches `gate`, and against at most `limit` older facts, events and
    open loops, those sharing most words with `text` first."""
    if change is None or change < gate:
        return ()
    pairable = [(ref, content) for ref, content, kind in older if kind in PAIRED_TYPES]
    return read_contradictions(text, most_related(text, pairable, limit), reader, likely=likely)
