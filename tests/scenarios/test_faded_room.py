"""Forgetting earns its keep (issue 32, `ScoringConfig.faded_hold_room`): a faded memory the
question does not recognise keeps its place in the ranking. What ranks below it does not move
up into the place forgetting freed, so the context holds fewer, likelier lines instead of the
next ones down. Shown with a context of one place (`top_k` 1 in the operator's tuning) so that
the place is the observable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import a_life

ASIDE = "Your sister moved to Lisbon? What neighbourhood is she in now, and does she like the job?"
FACT = "I work at a small bakery near the harbour, mostly early shifts."
CHATTER = "Finally fixed the squeaky door in the hallway."
QUESTION = "What neighbourhood in Lisbon is your sister in now, and does she like her job?"
NOT_RECOGNISED = {"recognition_min_similarity": 1.0, "recognition_min_lexical": None}
RECOGNISED = {
    "recognition_min_similarity": 0.0,
    "recognition_min_distinctiveness": None,
    "recognition_min_lexical": None,
}


async def _one_place(
    stack_settings: Settings, tenant_key: str, tmp_path: Path, scoring: dict[str, Any]
) -> list[str]:
    tuning = tmp_path / "tuning.json"
    tuning.write_text(json.dumps({"scoring": {"top_k": 1, **scoring}}))
    async with a_life(
        stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED, tuning_file=tuning
    ) as life:
        await life.say(ASIDE)
        await life.say(FACT)
        await life.days_pass(5)  # the aside's curve (0.5 a day): faded after 5 active days
        await life.say(CHATTER)
        aside = [m for m in await life.memories() if "What neighbourhood" in m["content"]]
        assert aside and aside[0]["faded"], aside
        context = await life.context(QUESTION)
    return [m["content"] for m in context["memories"]]


@pytest.mark.parametrize(
    ("scoring", "shown"),
    [
        # Faded and not recognised: it holds the one place; nothing below moves up.
        (NOT_RECOGNISED, "nothing"),
        # The rule removed: the next memory down takes the place.
        ({**NOT_RECOGNISED, "faded_hold_room": False}, "another"),
        # Recognised: the faded memory is shown in its place.
        (RECOGNISED, "the aside"),
    ],
)
async def test_a_faded_memory_holds_its_place_in_the_context(
    stack_settings: Settings,
    tenant_key: str,
    tmp_path: Path,
    scoring: dict[str, Any],
    shown: str,
) -> None:
    used = await _one_place(stack_settings, tenant_key, tmp_path, scoring)
    if shown == "nothing":
        assert used == [], used
    elif shown == "another":
        assert len(used) == 1 and "What neighbourhood" not in used[0], used
    else:
        assert len(used) == 1 and "What neighbourhood" in used[0], used
