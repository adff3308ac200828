"""Context assembly ranks by the whole §3.4 score (0.5 similarity + 0.2 recency + 0.3 weight),
not by similarity with the other two as a tie-break among the nearest."""

from __future__ import annotations

import numpy as np

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import Settings
from tests.scenarios.support import a_life

# Each nearer to the question than the warning, and no two the same memory (cosine <= 0.92):
# checked below with the stack's embedder.
COFFEE = (
    "I measure 18 grams of coffee for a double shot.",
    "Espresso tastes best when the crema is thick.",
    "My new grinder makes espresso much finer.",
    "I switched from espresso to flat white last year.",
    "I always order an espresso after a big lunch.",
    "I drink espresso standing at the bar like Italians.",
    "I drink two espressos before every exam.",
    "The espresso machine at work broke again.",
    "The café on Rua Augusta serves a strong espresso.",
    "Vending machine espresso is cheap but awful.",
    "Double shots keep me awake during night shifts.",
    "I prefer my espresso without sugar.",
    "An affogato is espresso poured over ice cream.",
    "My grandmother drank espresso every morning at six.",
    "Decaf espresso never tastes right to me.",
    "I descaled the espresso machine yesterday.",
    "Ordering coffee in Rome was a small adventure.",
    "I tried an espresso tonic in summer.",
    "Turkish coffee is stronger than espresso.",
    "I bought an Italian moka pot for stovetop coffee.",
    "A doppio at the station got me through the delay.",
    "My coffee budget is embarrassingly high.",
    "My boss brings me a macchiato on Mondays.",
    "Coffee after dinner keeps me up all night.",
    "My barista friend taught me to pull a ristretto.",
)
QUERY = "Should I order a double espresso now?"
WARNING = "My cardiologist told me to avoid stimulants because of my arrhythmia."


async def test_a_heavy_recent_memory_beats_light_near_ones_when_the_score_says_so(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (candidates = the 20 nearest only), the warning never reaches the context:
    25 faded coffee memories are all nearer to the question."""
    coffee = list(COFFEE)
    embedder = build_embedder(stack_settings)
    query = np.asarray(embedder.embed_queries([QUERY])[0])
    passages = np.asarray(embedder.embed_passages([*coffee, WARNING]))
    passages /= np.linalg.norm(passages, axis=1, keepdims=True)
    cosines = passages @ (query / np.linalg.norm(query))
    assert (cosines[:-1] > cosines[-1]).sum() >= 21  # the warning is not among the 20 nearest
    among = passages[:-1] @ passages[:-1].T
    assert (among[np.triu_indices(len(coffee), 1)] <= 0.92).all()  # 25 memories, not fewer

    async with a_life(stack_settings, tenant_key) as life:
        for start in range(0, len(coffee), 5):
            await life.say(*coffee[start : start + 5])
        for day in range(10):  # three weeks of ordinary use: the coffee memories fade
            await life.say(f"Just checking in on day {day + 1}, nothing new with me.")
            await life.days_pass(2)
        await life.say(WARNING)
        context = await life.context(QUERY)
        used = [m["content"] for m in context["memories"]]
        assert WARNING in used, context
        assert used.index(WARNING) == 0  # the best score of all
