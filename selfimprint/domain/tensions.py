"""What resolving a tension writes (epistemic-memory article: tensions stay "on the record
instead of being silently resolved"; only the user, through the app, resolves one).

The tension itself stays, marked resolved with the user's note: the log keeps the contradiction
and how the user settled it. What happens to the two memories depends on which side the user
keeps:
- `both`: each was true (e.g. at its own time); the memories are left as they are.
- `a` or `b`: the other side is wrong, exactly as PATCH memories `wrong=true` makes it
  (confidence 0, challenged now, refuted: out of the context); the kept side gains one piece of
  self-report evidence (the user vouched for it), recorded once per tension, and is current
  again if the contradiction had ended its validity (issue 33, `Node.valid_until`).
- `both` leaves an ended validity as it is: each was true at its own time.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    update_belief,
)
from selfimprint.domain.corrections import MemoryCorrection, apply_correction
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.models import MAX_CONTENT_CHARS, Node, Tension, TensionKeep, TensionStatus

# Which side the user keeps (`a` newer, `b` older, `both`): the tension stores it (models).
Keep = TensionKeep


class TensionResolution(BaseModel):
    """The user's answer to a tension (the body of POST .../tensions/{id}/resolve)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keep: Keep
    note: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] = ""


class RecordedResolution(BaseModel):
    """How a resolved tension was resolved (stored beside the tension)."""

    model_config = ConfigDict(frozen=True)

    keep: Keep
    resolved_at: AwareDatetime


class TensionRecord(BaseModel):
    """A stored tension and, once resolved through the API, how."""

    model_config = ConfigDict(frozen=True)

    tension: Tension

    @property
    def resolution(self) -> RecordedResolution | None:
        keep, at = self.tension.resolved_keep, self.tension.resolved_at
        return None if keep is None or at is None else RecordedResolution(keep=keep, resolved_at=at)


class TensionAlreadyResolvedError(ValueError):
    """The tension was resolved with another answer: a resolution is not silently replaced."""


class ResolutionWrites(BaseModel):
    """What one resolution writes: the resolved tension, the sides it changed, which of them
    is now refuted."""

    model_config = ConfigDict(frozen=True)

    tension: Tension
    recorded: RecordedResolution
    nodes: tuple[Node, ...] = ()
    refuted_ids: tuple[str, ...] = ()


def is_repeat(
    tension: Tension, recorded: RecordedResolution | None, resolution: TensionResolution
) -> bool:
    """True: the tension is already resolved exactly so (a retry: nothing to write). Raises
    TensionAlreadyResolvedError when it was resolved otherwise; False when still open."""
    if tension.status is TensionStatus.UNRESOLVED:
        return False
    if (
        recorded is not None
        and recorded.keep is resolution.keep
        and tension.note == resolution.note
    ):
        return True
    raise TensionAlreadyResolvedError(tension.id)


def plan_resolution(
    tension: Tension,
    resolution: TensionResolution,
    sides: Mapping[str, Node],
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> ResolutionWrites:
    """The writes that resolve an open tension. `sides`: the tension's memories by id (a side
    already gone is simply not written)."""
    resolved = tension.model_copy(
        update={
            "status": TensionStatus.RESOLVED,
            "note": resolution.note,
            "resolved_keep": resolution.keep,
            "resolved_at": now,
        }
    )
    recorded = RecordedResolution(keep=resolution.keep, resolved_at=now)
    if resolution.keep is Keep.BOTH:
        return ResolutionWrites(tension=resolved, recorded=recorded)
    kept_id, wrong_id = (
        (tension.node_a, tension.node_b)
        if resolution.keep is Keep.A
        else (tension.node_b, tension.node_a)
    )
    nodes: list[Node] = []
    refuted: list[str] = []
    if (kept := sides.get(kept_id)) is not None:
        vouched = Evidence(
            id=f"{tension.id}:kept", stream=EvidenceStream.SELF_REPORT, supports=True, at=now
        )
        belief = update_belief(kept.belief, vouched, beliefs).belief
        # The user says the kept side holds: if the other had ended it, it is current again.
        nodes.append(kept.model_copy(update={"belief": belief, "valid_until": None}))
    if (wrong := sides.get(wrong_id)) is not None:
        nodes.append(apply_correction(wrong, MemoryCorrection(wrong=True), now, timeline=timeline))
        refuted.append(wrong.id)
    return ResolutionWrites(
        tension=resolved, recorded=recorded, nodes=tuple(nodes), refuted_ids=tuple(refuted)
    )
