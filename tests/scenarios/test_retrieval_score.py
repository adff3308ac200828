"""Context assembly ranks by the whole §3.4 score (0.5 similarity + 0.2 recency + 0.3 weight),
not by similarity with the other two as a tie-break among the nearest. The weight term is the
weight evidence set (importance, re-mentions, contradictions), not the decayed one: time counts
once, in recency (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

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


async def test_a_recent_memory_the_nearest_pool_misses_still_reaches_the_context(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (candidates = the 20 nearest only), the warning never reaches the context:
    25 older coffee memories are all nearer to the question. (Where it ranks among them is the
    score's business: with the stored weight in the score, three weeks of age cost the coffee
    memories recency only, and the two nearest outrank a fresh but less similar warning.)"""
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


SISTER = "My sister Olga moved to Lisbon, she works there as an architect."
TRAVEL = (
    "Thinking about where to travel this summer, somewhere warm maybe.",
    "Prices for flights in July are crazy this year.",
    "I would love a city trip with good food and old streets.",
    "Maybe a beach week instead, I really need the sun.",
    "My friend recommends renting a flat instead of a hotel.",
    "Need to renew my passport before any trip abroad.",
    "Looked at train routes across Europe tonight.",
    "Packing light is my new rule for every trip.",
    "A colleague just came back from a road trip and loved it.",
    "Should I book early or wait for last minute deals?",
    "Found a travel blog with great tips for cheap trips.",
    "I keep a list of cities I want to see one day.",
)


@pytest.mark.parametrize("decayed_weight", [False, True])
async def test_a_specific_question_finds_a_month_old_fact_among_fresher_chatter(
    stack_settings: Settings, tenant_key: str, tmp_path: Path, decayed_weight: bool
) -> None:
    """Said once, then 24 active days of travel chatter: the fact has lost 87 % of its weight
    to decay but is still live. Asked about it, the stored weight in the score puts it first.
    Rule removed (`decayed_weight_in_score`, the literal §3.4 reading), age counts twice and
    fresher, loosely related chatter outranks it."""
    tuning = tmp_path / "tuning.json"
    tuning.write_text(json.dumps({"scoring": {"decayed_weight_in_score": decayed_weight}}))
    async with a_life(stack_settings, tenant_key, tuning_file=tuning) as life:
        await life.say(SISTER)
        for text in TRAVEL:
            await life.days_pass(2)
            await life.say(text)
        sister = [m for m in await life.memories() if "Olga" in m["content"]]
        assert sister and not sister[0]["faded"], sister
        assert 0.05 < sister[0]["weight"] < 0.92**20, sister  # decayed, still live
        context = await life.context("Where does my sister live?", budget_tokens=90)
        used = [m["content"] for m in context["memories"]]
        assert len(used) >= 2, context  # the budget holds more than one memory
        # Best first: the fact leads; with age counted twice, fresher chatter outranks it.
        assert (used[0] == SISTER) is not decayed_weight, context
