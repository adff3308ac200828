"""Context assembly ranks by the whole §3.4 score (0.5 similarity + 0.2 recency + 0.3 weight),
not by similarity with the other two as a tie-break among the nearest."""

from __future__ import annotations

import numpy as np

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import Settings
from tests.scenarios.support import a_life

PLACES = (
    "the station", "the office kitchen", "my sister's flat", "the airport", "a bakery",
    "the library", "the gym", "a roadside diner", "the hospital canteen", "a bookshop",
    "the train", "a hotel lobby", "the park kiosk", "my desk", "a friend's wedding",
    "the ferry", "a petrol station", "the university", "a market stall", "the cinema",
    "a jazz bar", "the bus depot", "a ski lodge", "the beach bar", "my parents' house",
)  # fmt: skip
QUERY = "Should I order a double espresso now?"
WARNING = "My cardiologist told me to cut out caffeine because of my heart rhythm."


async def test_a_heavy_recent_memory_beats_light_near_ones_when_the_score_says_so(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (candidates = the 20 nearest only), the warning never reaches the context:
    25 faded coffee memories are all nearer to the question."""
    coffee = [f"I had an espresso at {place}." for place in PLACES]
    embedder = build_embedder(stack_settings)
    query = np.asarray(embedder.embed_queries([QUERY])[0])
    passages = np.asarray(embedder.embed_passages([*coffee, WARNING]))
    cosines = passages @ query / (np.linalg.norm(passages, axis=1) * np.linalg.norm(query))
    assert (cosines[:-1] > cosines[-1]).sum() >= 20  # the warning is not among the 20 nearest

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
