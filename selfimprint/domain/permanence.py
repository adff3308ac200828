"""How a belief earns the `stable` permanence class and loses it (the epistemic-memory article,
component 4: "~2 years for stable traits, ~5 months for durable, ~6 weeks for situational").

The article names the classes but not how a belief enters one; ingestion gives every memory its
type's class (durable facts, situational moods). The rule here (project choice, numbers in
`BeliefConfig`):
- a durable fact or person becomes stable when at least `stable_min_confirmations` observations
  support it, the last of them at least `stable_min_span` after it was first seen, and nothing
  challenged it within that span (the article's "stable traits": what keeps holding up);
- a stable belief that is challenged falls back to durable, to earn the class again.
Situational beliefs never become stable: a mood confirmed often is still a mood.
"""

from __future__ import annotations

from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig, Evidence, update_belief
from selfimprint.domain.models import Belief, Node, NodeType, Permanence

# The node types that describe lasting traits of the user's world: facts and people. Events are
# dated, emotional notes and open loops are situational by nature, hypotheses have their own
# lifecycle (spec §3.5.1).
STABLE_CAPABLE: frozenset[NodeType] = frozenset({NodeType.FACT, NodeType.PERSON})


def earns_stable(
    node_type: NodeType, belief: Belief, config: BeliefConfig = DEFAULT_BELIEF
) -> bool:
    """The evidence of `belief` meets the stable rule (see the module docstring)."""
    if node_type not in STABLE_CAPABLE or belief.permanence is not Permanence.DURABLE:
        return False
    confirmed = belief.confirmed_at
    if confirmed is None or len(belief.observed_for) < config.stable_min_confirmations:
        return False
    window_start = confirmed - config.stable_min_span
    unchallenged = belief.challenged_at is None or belief.challenged_at <= window_start
    return belief.first_seen <= window_start and unchallenged


def permanence_after(
    node_type: NodeType, belief: Belief, evidence: Evidence, config: BeliefConfig = DEFAULT_BELIEF
) -> Permanence:
    """The class `belief` (with `evidence` already recorded on it) belongs to now."""
    if not evidence.supports:
        return Permanence.DURABLE if belief.permanence is Permanence.STABLE else belief.permanence
    return Permanence.STABLE if earns_stable(node_type, belief, config) else belief.permanence


def with_evidence(node: Node, evidence: Evidence, config: BeliefConfig = DEFAULT_BELIEF) -> Node:
    """`node` with one piece of evidence recorded on its belief (`belief.update_belief`) and its
    permanence settled; evidence already recorded returns `node` unchanged (a replay)."""
    outcome = update_belief(node.belief, evidence, config)
    if not outcome.counted:
        return node
    permanence = permanence_after(node.type, outcome.belief, evidence, config)
    belief = outcome.belief.model_copy(update={"permanence": permanence})
    return node.model_copy(update={"belief": belief})
