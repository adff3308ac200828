"""Prompt builders and the JSON schemas of their answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from selfimprint.domain.context import AssembledContext, UsedMemory, prose_budget
from selfimprint.domain.ingestion.planner import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType
from selfimprint.prompts import LLMAnswer, inline_refs
from selfimprint.prompts.context_summary import ProseSummary, context_summary_messages
from selfimprint.prompts.extraction import (
    ExtractionAnswer,
    RecentMemory,
    extraction_messages,
)
from selfimprint.prompts.refinement import RefinementAnswer

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
MESSAGES = [
    Message(
        id="msg-1",
        role=Role.USER,
        text="Вчера уволился из TechCorp.",
        sent_at=NOW - timedelta(minutes=5),
    ),
    Message(id="msg-2", role=Role.ASSISTANT, text="Почему?", sent_at=NOW - timedelta(minutes=4)),
]
RECENT = [RecentMemory(id="m-abc", type=NodeType.FACT, content="Работает в TechCorp.")]


def walk(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from walk(item)


@pytest.mark.parametrize("answer", [ExtractionAnswer, RefinementAnswer, ProseSummary])
def test_answer_schemas_are_self_contained_and_bounded(answer: type[BaseModel]) -> None:
    schema = answer.model_json_schema()
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    for part in walk(schema):
        if part.get("type") == "string" and "enum" not in part:
            assert "maxLength" in part, part
        if part.get("type") == "array":
            assert "maxItems" in part, part
        if part.get("type") == "object":
            assert part["additionalProperties"] is False
            assert set(part["required"]) == set(part["properties"])


@pytest.mark.parametrize("answer", [ExtractionAnswer, RefinementAnswer, ProseSummary])
def test_llama_cpp_accepts_the_schemas(answer: type[BaseModel]) -> None:
    xllamacpp = pytest.importorskip("xllamacpp")
    grammar = xllamacpp.json_schema_to_grammar(json.dumps(answer.model_json_schema()))
    assert grammar


def test_extraction_never_offers_hypotheses() -> None:
    schema = ExtractionAnswer.model_json_schema()
    kinds = schema["properties"]["candidates"]["items"]["properties"]["type"]["enum"]
    assert "hypothesis" not in kinds and "fact" in kinds
    with pytest.raises(ValidationError):
        ExtractionAnswer.model_validate_json(
            '{"candidates": [{"ref": "n1", "type": "hypothesis", "content": "x", '
            '"importance": 0.5, "valence": null, "dates_mentioned": [], "people": [], '
            '"evidence_kind": "observed", "source_message_ids": [], '
            '"contradicts_memory_ids": []}], "edges": []}'
        )


def test_a_parsed_answer_goes_straight_into_the_plan() -> None:
    answer = ExtractionAnswer.model_validate_json(
        '{"candidates": [{"ref": "n1", "type": "event", "content": "Уволился из TechCorp.", '
        '"importance": 0.9, "valence": null, "dates_mentioned": ["2026-03-09"], "people": [], '
        '"evidence_kind": "self_report", "source_message_ids": ["msg-1"], '
        '"contradicts_memory_ids": ["m-abc"]}], "edges": []}'
    )
    plan = plan_ingestion(answer, MESSAGES, user_id="u", now=NOW)
    assert plan.nodes[0].content == "Уволился из TechCorp." and plan.nodes[0].significant


def test_recursive_schemas_are_refused() -> None:
    schema = {"$defs": {"A": {"properties": {"a": {"$ref": "#/$defs/A"}}}}, "$ref": "#/$defs/A"}
    with pytest.raises(ValueError, match="recursive"):
        inline_refs(schema)


def test_inlining_keeps_sibling_keywords() -> None:
    schema = {"$defs": {"A": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/A"}}}
    assert inline_refs(schema) == {"properties": {"x": {"type": "string"}}}
    assert issubclass(ProseSummary, LLMAnswer)


def test_extraction_prompt_shows_ids_dates_recent_memories_and_language() -> None:
    system, user = extraction_messages(MESSAGES, RECENT, "ru", NOW)
    assert (system["role"], user["role"]) == ("system", "user")
    assert "written in Russian" in system["content"]
    assert "hypothesis" not in system["content"]
    assert "Now: 2026-03-10 12:00 UTC (Tuesday)." in user["content"]
    assert "m-abc | fact | Работает в TechCorp." in user["content"]
    assert "[msg-1] 2026-03-10 11:55 UTC user: Вчера уволился из TechCorp." in user["content"]
    assert "[msg-2] 2026-03-10 11:56 UTC assistant: Почему?" in user["content"]


def test_extraction_prompt_with_an_unknown_language_asks_for_the_users_own() -> None:
    system, user = extraction_messages(MESSAGES, [], "und", NOW)
    assert "the language of the user's messages" in system["content"]
    assert "Recent memories: none." in user["content"]


def test_long_messages_are_clipped_in_the_prompt() -> None:
    long = Message(id="msg-9", role=Role.USER, text="a" * 10_000, sent_at=NOW)
    _, user = extraction_messages([long], [], "en", NOW)
    assert len(user["content"]) < 2_500


def test_the_example_in_the_extraction_prompt_is_a_valid_answer() -> None:
    system, _ = extraction_messages(MESSAGES, [], "en", NOW)
    example = system["content"].split("Answer:\n", 1)[1]
    ExtractionAnswer.model_validate_json(example)


def test_summary_prompt_states_language_budget_and_no_quoting() -> None:
    context = AssembledContext(
        text="Справка...\nИзвестно:\n- Работает в DataInc.",
        memories_used=(
            UsedMemory(id="m", type=NodeType.FACT, content="x", score=0.9, sources=("s",)),
        ),
        open_loop_questions=(),
        tokens=20,
        language="ru",
        template_language="ru",
        language_fallback=False,
    )
    system, user = context_summary_messages(context, "Как мне быть с работой?", budget_tokens=200)
    assert "Write in Russian" in system["content"]
    assert "must not quote it" in system["content"]
    assert f"at most {prose_budget('ru', 200)} tokens" in system["content"]
    assert prose_budget("ru", 200) < 200
    assert "Известно:\n- Работает в DataInc." in user["content"]
    assert "Справка" not in user["content"]
    assert "Как мне быть с работой?" in user["content"]
    assert ProseSummary.model_validate_json('{"text": "Работает в DataInc."}').text
