"""Only what the user said is remembered (issue 17, grounding guard): an extractor that copies
its prompt's example, as SmolLM2-135M did, leaves no trace in the user's memories."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel
from temporalio.client import WorkflowHandle

from selfimprint.config import Settings
from tests.scenarios.support import a_life
from workflows.user_lifecycle import UserLifecycleWorkflow

AnswerT = TypeVar("AnswerT", bound=BaseModel)
# A message line of the extraction prompt (prompts.extraction): "[id] 2026-... UTC user: text".
_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] \S+ \S+ UTC user: (?P<text>.*)$", re.MULTILINE)


@dataclass
class CopyingExtractor:
    """Answers every batch with each user message in its own words, plus the prompt's example
    memory "Anna is the user's sister." citing the same message (the recorded SmolLM2 habit)."""

    model_name: str = "copying-extractor"

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        candidates: list[dict[str, Any]] = []
        for n, found in enumerate(_LINE.finditer(messages[-1]["content"])):
            for ref, content, kind, people in (
                (f"n{2 * n + 1}", found["text"], "fact", []),
                (f"n{2 * n + 2}", "Anna is the user's sister.", "person", ["Anna"]),
            ):
                candidates.append(
                    {
                        "ref": ref,
                        "type": kind,
                        "content": content,
                        "importance": 0.5,
                        "valence": None,
                        "dates_mentioned": [],
                        "people": people,
                        "evidence_kind": "self_report",
                        "source_message_ids": [found["id"]],
                        "contradicts_memory_ids": [],
                    }
                )
        return answer_type.model_validate({"candidates": candidates, "edges": []})

    async def unhealthy_reason(self) -> str | None:
        return None


async def test_a_copied_prompt_example_is_never_remembered(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (`min_support` 0 and no check of names), the user has a sister Anna."""
    async with a_life(stack_settings, tenant_key, extractor=CopyingExtractor()) as life:
        await life.say("I started pottery classes on Thursdays.")
        await life.days_pass(3)
        await life.say("My landlord finally fixed the boiler.")
        contents = {m["content"] for m in await life.memories()}
        assert contents == {
            "I started pottery classes on Thursdays.",
            "My landlord finally fixed the boiler.",
        }
        context = await life.context("Who is Anna?")
        assert all("Anna" not in m["content"] for m in context["memories"])
        handle: WorkflowHandle[Any, Any] = life.env.client.get_workflow_handle(life.lifecycle_id)
        state = await handle.query(UserLifecycleWorkflow.state)
        assert state.ingestion.stats.memories_ungrounded == 2
