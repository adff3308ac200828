"""What forgetting does to a memory whose weight decays under the removal threshold (issue 32).

Forgetting demotes: such a memory is *faded*. It leaves the default context pool (the prior,
scheduled and lexical pools and the one-hop expansion read only live memories), but it is kept:
a query that matches it strongly brings it back (recognition, `scoring.recognised`), and a
re-mention reinforces it like any memory, which makes it live again; so does being recalled: a
context that uses it marks it (`Node.recalled_at`) and the next sleep reinforces it
(`sleep_planning.plan_recalibration`). Its tensions and its place
in hypotheses' evidence stay with it.

Deletion is for noise and for the user. The sweeper (weekly, before compaction) deletes the
faded memories that are noise only: superseded transient feelings (a negative emotional note,
spec §3.3's frustration on the 0.5 curve, that a later statement of the user ended:
`valid_until` set) and any type an operator lists. Other faded notes are kept like facts: told
feelings carry what happened ("so proud of the kids' painting at the museum", "last week my
grandma passed away and it's been really hard"), the extractor's valence errs, and on LoCoMo dev
they hold much of what users later ask about; the transient frustration still leaves the default
context within days (it fades). What the user or the operator asks to forget goes by its own
paths (DELETE, forget-topic, erase).

The storage this keeps is bounded: past `max_faded` faded memories per user, the longest faded
(earliest expiry) go.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.models import NodeType, Valence


class FadingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Issue 32: types the sweeper deletes once faded, whatever else they are (none by default).
    deleted_when_faded: tuple[NodeType, ...] = ()
    # Issue 32: emotional notes of these valences are noise once faded (the transient
    # frustration of spec §3.3) ...
    noise_valences: tuple[Valence, ...] = (Valence.NEGATIVE,)
    # ... when a later statement of the user superseded them (`valid_until` set): "superseded
    # transient feelings". False: every faded one goes (as before; recognition then finds none
    # of them after the next sweep). Chosen with scoring.unrecognised_valences (LoCoMo dev:
    # faded negative notes hold what temporal questions ask about).
    noise_only_when_superseded: bool = True
    # Project choice: faded memories kept per user. A LoCoMo conversation (~600 turns) leaves
    # ~2,800 memories in all. Measured (BENCHMARKS.md, "Faded memories: storage per user"):
    # 5,000 faded memories take 44 MiB of Neo4j store at 384 dimensions, 102 MiB with bge-m3's
    # 1,024 (records and indexes about half each), 14 / 37 MiB in a warm-tier archive.
    max_faded: Annotated[int, Field(ge=0)] = 5_000


DEFAULT_FADING = FadingConfig()


def deleted_when_faded(
    node_type: NodeType,
    valence: Valence | None = None,
    config: FadingConfig = DEFAULT_FADING,
    superseded: bool = False,
) -> bool:
    """Whether the sweeper deletes a faded memory of this type and valence (noise) instead of
    keeping it; `superseded`: a later statement of the user ended it (`valid_until` set). The
    Neo4j sweeper (`adapters.neo4j.forgetting`) applies the same rule in Cypher."""
    if node_type in config.deleted_when_faded:
        return True
    noisy = node_type is NodeType.EMOTIONAL_NOTE and valence in config.noise_valences
    return noisy and (superseded or not config.noise_only_when_superseded)
