"""The numbers of weekly compaction (spec §3.9): removal thresholds and edge budgets per mode,
edge decay rates, the grace period of new isolated nodes and the soft-reset levels. The spec
gives some of them; the rest are our defaults, each cited where it is set."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.compaction.entropy import EntropyConfig
from selfimprint.domain.fading import DEFAULT_FADING, FadingConfig
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CompactionLimits(_Frozen):
    edge_removal_threshold: Annotated[float, Field(ge=0.0, le=1.0)]
    edge_budget: Annotated[int, Field(ge=1)]


class CompactionConfig(_Frozen):
    # §3.9: edges below 0.1 are removed; 20 edges per node.
    normal: CompactionLimits = CompactionLimits(edge_removal_threshold=0.1, edge_budget=20)
    # §3.9 says compaction "gets aggressive" past the entropy threshold, without numbers:
    # twice the removal threshold, a tighter budget. Never a looser duplicate test: whether two
    # memories say the same thing does not depend on how tangled the graph is.
    aggressive: CompactionLimits = CompactionLimits(edge_removal_threshold=0.2, edge_budget=12)
    # §3.9: near-duplicates of one type merge; "near" is the restatement test ingestion uses
    # to reinforce (cosine > 0.92 alone merged different statements, docs/benchmarks-locomo.md).
    restatement: RestatementConfig = DEFAULT_RESTATEMENT
    # §3.9: confidence "decays over time when an edge isn't reinforced", rate not given.
    # Per day: an inferred edge starting at 0.5 reaches 0.1 after ~80 idle days, an observed
    # edge at 0.95 after ~220.
    observed_edge_decay_per_day: Annotated[float, Field(gt=0.0, le=1.0)] = 0.99
    inferred_edge_decay_per_day: Annotated[float, Field(gt=0.0, le=1.0)] = 0.98
    # Spec silent: a node created or reinforced within one weekly cycle (§3.9 runs weekly) is
    # not removed for being isolated; the sleep phase has not had a chance to connect it yet.
    isolated_grace_days: Annotated[float, Field(ge=0.0)] = 7.0
    # §3.9 entropy measures and the aggressive threshold (see EntropyConfig).
    entropy: EntropyConfig = EntropyConfig()
    # §3.9 soft reset: keep pinned facts and the last 30 days.
    soft_reset_window_days: Annotated[float, Field(gt=0.0)] = 30.0
    # Spec: soft reset needs entropy "plus user feedback"; levels are ours.
    soft_reset_entropy_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.8
    soft_reset_min_feedback: Annotated[int, Field(ge=1)] = 1
    # Issue 32: what the sweeper before each compaction deletes of the faded memories (noise
    # types; past the per-user bound, the longest faded) and keeps (the rest).
    fading: FadingConfig = DEFAULT_FADING
