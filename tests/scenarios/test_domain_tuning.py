"""The operator's tuning document reaches the running system: the API ranks and the workers
plan with its numbers, not the code's defaults."""

from __future__ import annotations

import json
from pathlib import Path

from selfimprint.config import Settings
from tests.scenarios.support import a_life

PIANO = (
    "I started piano lessons in March.",
    "My piano teacher is called Olga.",
    "I practise piano for an hour every evening.",
    "I am learning a Chopin nocturne on the piano.",
    "My piano is an old upright from my grandmother.",
    "I want to play piano at my sister's wedding.",
)


async def test_the_scoring_section_sets_how_many_memories_a_context_carries(
    stack_settings: Settings, tenant_key: str, tmp_path: Path
) -> None:
    """Rule removed (the read path ranks with the code's ScoringConfig, top 20), all six piano
    memories reach the context."""
    tuning = tmp_path / "tuning.json"
    tuning.write_text(json.dumps({"scoring": {"top_k": 2}}))
    async with a_life(stack_settings, tenant_key) as default_life:
        await default_life.say(*PIANO)
        everything = await default_life.context("How is the piano going?")
    assert len(everything["memories"]) == len(PIANO), everything
    async with a_life(stack_settings, tenant_key, tuning_file=tuning) as tuned_life:
        await tuned_life.say(*PIANO)
        tuned = await tuned_life.context("How is the piano going?")
    assert len(tuned["memories"]) == 2, tuned
    assert {m["content"] for m in tuned["memories"]} <= set(PIANO)
