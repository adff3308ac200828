"""A model's corrections to the structured draft (extraction=refine, production with vLLM).

The structured pass drafts the batch's memories in the user's words; the model answers only what
changes: a type (and valence) to correct, drafts that are not memories, what the draft missed,
links and contradictions it did not see. A model that agrees answers five empty lists, so the
tokens it generates per message are a fraction of a full extraction's (scripts/
bench_extraction_tokens.py). Whatever it adds passes the grounding guard like any candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.ingestion.extraction import (
    MAX_CANDIDATES,
    MAX_EXTRACTED_EDGES,
    MAX_LLM_CANDIDATES,
    MAX_MENTIONS,
    CandidateType,
    ExtractedEdge,
    ExtractedMemory,
    Extraction,
    Ref,
    RefOrId,
)
from selfimprint.domain.models import Valence

MAX_CORRECTIONS: Final = 16


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Retype(_Value):
    """A draft read as the wrong type; `valence` is required for an emotional note."""

    ref: Ref
    type: CandidateType
    valence: Valence | None


class AddedContradiction(_Value):
    ref: Ref
    memory_ids: Annotated[tuple[RefOrId, ...], Field(min_length=1, max_length=MAX_MENTIONS)]


class Refinement(_Value):
    """What the model changes in the draft; every list may be empty (the draft stands)."""

    retype: Annotated[tuple[Retype, ...], Field(max_length=MAX_CORRECTIONS)] = ()
    drop: Annotated[tuple[Ref, ...], Field(max_length=MAX_CORRECTIONS)] = ()
    add: Annotated[tuple[ExtractedMemory, ...], Field(max_length=MAX_LLM_CANDIDATES)] = ()
    edges: Annotated[tuple[ExtractedEdge, ...], Field(max_length=MAX_EXTRACTED_EDGES)] = ()
    contradicts: Annotated[tuple[AddedContradiction, ...], Field(max_length=MAX_CORRECTIONS)] = ()


def refine(draft: Extraction, refinement: Refinement) -> Extraction:
    """The draft with the model's corrections. Corrections naming refs the draft does not have
    are ignored (a model may invent refs); an added candidate whose ref is taken gets a fresh one.
    Dropped drafts take their edges with them."""
    refs = {c.ref for c in draft.candidates}
    dropped = set(refinement.drop) & refs
    retyped = {r.ref: r for r in refinement.retype if r.ref in refs}
    contradicts: dict[str, list[str]] = {}
    for added in refinement.contradicts:
        if added.ref in refs:
            contradicts.setdefault(added.ref, []).extend(added.memory_ids)
    candidates: list[ExtractedMemory] = []
    for candidate in draft.candidates:
        if candidate.ref in dropped:
            continue
        update: dict[str, object] = {}
        retype = retyped.get(candidate.ref)
        if retype is not None:
            emotional = retype.type is CandidateType.EMOTIONAL_NOTE
            if emotional and retype.valence is None:
                continue  # an emotional note with no valence cannot be planned: keep the draft
            update = {"type": retype.type, "valence": retype.valence if emotional else None}
        extra = contradicts.get(candidate.ref)
        if extra:
            merged = tuple(dict.fromkeys((*candidate.contradicts_memory_ids, *extra)))
            update["contradicts_memory_ids"] = merged[:MAX_MENTIONS]
        candidates.append(candidate.model_copy(update=update) if update else candidate)
    taken = {c.ref for c in candidates} | refs
    for number, new in enumerate(refinement.add, 1):
        ref = new.ref if new.ref not in taken else f"r{number}"
        while ref in taken:
            ref += "x"
        taken.add(ref)
        candidates.append(new.model_copy(update={"ref": ref}) if ref != new.ref else new)
    edges = [e for e in draft.edges if e.source_ref not in dropped and e.target_ref not in dropped]
    edges += [e for e in refinement.edges if e not in edges]
    return Extraction(
        candidates=tuple(candidates[:MAX_CANDIDATES]),
        edges=tuple(edges[:MAX_EXTRACTED_EDGES]),
    )


def draft_lines(draft: Extraction) -> Sequence[str]:
    """The draft as the prompt shows it: ref | type | dates | people | contradicts | content."""
    lines = []
    for c in draft.candidates:
        kind = c.type.value + (f"/{c.valence.value}" if c.valence else "")
        dates = ",".join(c.dates_mentioned) or "-"
        people = ",".join(c.people) or "-"
        against = ",".join(c.contradicts_memory_ids) or "-"
        lines.append(f"{c.ref} | {kind} | {dates} | {people} | {against} | {c.content}")
    return lines
