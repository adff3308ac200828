"""What one batch's plan has accumulated so far. `planner.plan_ingestion` creates a draft and
runs the steps (candidates, reinforcement, edges, contradictions) over it, in that order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.decay import ActivityTimeline, ReinforcementTally
from selfimprint.domain.ingestion.config import IngestionConfig
from selfimprint.domain.ingestion.extraction import CandidateType, ExtractedMemory
from selfimprint.domain.ingestion.plan import DroppedEdge, NodeMentions, Rejection
from selfimprint.domain.messages import Message
from selfimprint.domain.models import Edge, EdgeType, Node


class PlanDraft:
    """Accumulates one plan; `plan_ingestion` and its steps are its only users."""

    def __init__(
        self,
        *,
        user_id: str,
        messages: Sequence[Message],
        recent: Sequence[Node],
        now: datetime,
        tallies: Mapping[str, ReinforcementTally],
        timeline: ActivityTimeline | None,
        config: IngestionConfig,
        beliefs: BeliefConfig = DEFAULT_BELIEF,
        near: Mapping[str, Sequence[CandidateType]] | None = None,
    ) -> None:
        self.user_id = user_id
        self.messages = messages
        self.now = now
        self.tallies = tallies
        self.timeline = timeline
        self.config = config
        self.beliefs = beliefs
        # Candidate ref -> the types the reader nearly chose (Extraction.near).
        self.near = dict(near or {})
        # Tenant scope: a memory of another user is never linked, reinforced or down-weighted.
        self.recent = {n.id: n for n in recent if n.user_id == user_id}
        self.resolved: dict[str, str] = {}
        self.candidates: dict[str, ExtractedMemory] = {}
        self.new_nodes: dict[str, Node] = {}
        self.reinforced: dict[str, Node] = {}
        self.reinforced_sources: dict[str, list[str]] = {}
        self.sent_at = {m.id: m.sent_at for m in messages}
        self.rejected: list[Rejection] = []
        # The user messages of the batch each accepted candidate cites (its grounding).
        self.sources: dict[str, tuple[str, ...]] = {}
        self.trimmed: list[str] = []
        self.mentions: list[NodeMentions] = []
        self.edges: dict[tuple[str, str, EdgeType], Edge] = {}
        self.dropped: list[DroppedEdge] = []
        self.contradiction_pairs: list[tuple[str, str]] = []

    def said_at(self, sources: Sequence[str]) -> datetime:
        """When the user said it: the latest of its messages' sent_at, never after `now` (a
        client clock ahead of ours). A backfilled conversation keeps its own times, so recency,
        decay and the time-of-day patterns see when things were said, not when they arrived."""
        sent = [self.sent_at[s] for s in sources if s in self.sent_at]
        return min(max(sent), self.now) if sent else self.now

    def born_at(self, said: datetime) -> datetime:
        """Where a new memory's decay starts: when it was said, or the user's latest activity
        the timeline knows at storage if that is later (never after `now`). No memory is born
        expired (issue 33): a batch extracted late (an LLM outage, an imported history) would
        otherwise store feelings already past their expiry, since the user's clock kept
        running while they waited. Extracted as they arrive, the two are the same moment."""
        latest = self.timeline.last_active_at if self.timeline is not None else None
        if latest is None or latest <= said:
            return said
        return min(latest, self.now)
