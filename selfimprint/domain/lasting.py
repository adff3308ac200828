"""Lasting traits (issue 33): what the user says about a condition they live with (an allergy,
an intolerance, a chronic illness, a diet) stays true for years, whatever mood the sentence
was said in. "I'm allergic to cats, ugh" read as an emotional note would fade within days and,
faded, be deleted as noise (domain.fading); read as a fact it decays on the fact's curve and,
faded, is kept and recognised by a question about it.

The rule, applied to every extractor's output at ingestion: a memory whose words name such a
trait is a fact (an emotional note becomes one; other types keep theirs: "allergist on Monday"
is still an appointment) and its belief is `stable` (the slowest confidence dormancy). The words
are a short EN/RU list of stems, deliberately narrow: a wrong hit costs a feeling the fact's
curve, a miss costs the user their allergy.
"""

from __future__ import annotations

import re

from selfimprint.domain.models import NodeType, Permanence

# Stems, matched at a word's start, case-insensitive: allergy, intolerance, diet, chronic illness.
_TRAITS = re.compile(
    r"\b(?:allerg|intoleran|vegetarian|vegan|pescatarian|coeliac|celiac|diabet|asthma"
    r"|epilep|gluten[- ]free|lactose[- ]free"
    r"|аллерг|непереносим|вегетариан|веган|целиаки|диабет|астм|эпилеп|без\s+глютен)",
    re.IGNORECASE,
)


def names_lasting_trait(text: str) -> bool:
    return _TRAITS.search(text) is not None


def lasting_type(node_type: NodeType, text: str) -> NodeType:
    """The type a memory of these words is stored as: an emotional note naming a lasting trait
    is a fact."""
    if node_type is NodeType.EMOTIONAL_NOTE and names_lasting_trait(text):
        return NodeType.FACT
    return node_type


def lasting_permanence(node_type: NodeType, text: str, default: Permanence) -> Permanence:
    """A fact naming a lasting trait is stable; anything else keeps its type's permanence."""
    if node_type is NodeType.FACT and names_lasting_trait(text):
        return Permanence.STABLE
    return default
