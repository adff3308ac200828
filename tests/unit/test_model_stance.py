"""A model-scored stance for hypothesis evidence (issue 16): the prompt and its answer contract
(recorded answers, no model), the candidate pairs the rule lets the model read, the model's
verdicts overriding the rule's in the check, and the gpu activity that asks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Literal, TypeVar

import pytest
from pydantic import BaseModel, ValidationError

from activities.sleep import JudgeStancesInput, SleepModelActivities, StancePair
from selfimprint.adapters.llm import LLMAnswerInvalidError
from selfimprint.config import Settings
from selfimprint.domain.models import Edge, EdgeType
from selfimprint.domain.sleep_planning import plan_hypothesis_checks, stance_candidates
from selfimprint.domain.stance import StanceConfig, StanceVerdict
from selfimprint.domain.users import UserScope
from selfimprint.prompts.hypotheses import (
    MAX_MEMORY_CHARS,
    StanceAnswer,
    stance_messages,
    stances_by_memory,
)
from selfimprint.service.lifecycle_signals import _initial
from tests.unit.test_sleep_planning import CITED, NOW, RUNS, _running_hypothesis, memory
from tests.workflows.support import ScriptedLLM

pytestmark = pytest.mark.unit
AnswerT = TypeVar("AnswerT", bound=BaseModel)

# One shared stem and no embeddings: the rule needs two, so it calls this neutral.
CHORE = memory(41, "Running feels like a chore lately.", days_ago=2)
QUESTION = memory(42, "Is running good for knees?", days_ago=2)
BROTHER = memory(43, "My brother runs marathons.", days_ago=2)
HIKING = memory(44, "We went hiking on Sunday.", days_ago=2)
QUIT = memory(45, "I quit running in the mornings.", days_ago=1)
EDGE = Edge(source_id="n41", target_id="n1", type=EdgeType.CONTRADICTS, created_at=NOW)


# --- the prompt and the answer contract -------------------------------------------------------


def test_the_prompt_shows_the_statement_and_the_numbered_memories_clipped() -> None:
    system, user = stance_messages(RUNS, ["I run daily.", "x" * 500])
    assert '"stances"' in system["content"] and "neutral" in system["content"]
    assert user["content"].startswith(f"Hypothesis: {RUNS}\n\nMemories:\n1. I run daily.\n2. x")
    assert "x" * (MAX_MEMORY_CHARS + 1) not in user["content"]


def test_the_schema_is_self_contained_with_every_field_required() -> None:
    schema = StanceAnswer.model_json_schema()
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    assert schema["required"] == ["stances"] and schema["additionalProperties"] is False
    stances = schema["properties"]["stances"]
    assert stances["maxItems"] == 20
    item = stances["items"]
    assert set(item["required"]) == {"memory", "stance"} and item["additionalProperties"] is False
    assert item["properties"]["stance"]["enum"] == ["supporting", "contradicting", "neutral"]


def test_a_recorded_answer_maps_each_shown_number_to_its_stance() -> None:
    recorded = (
        '{"stances": [{"memory": 1, "stance": "contradicting"}, {"memory": 2, "stance": "neutral"},'
        ' {"memory": 3, "stance": "supporting"}, {"memory": 3, "stance": "contradicting"},'
        ' {"memory": 4, "stance": "supporting"}, {"memory": 1, "stance": "contradicting"}]}'
    )
    answer = StanceAnswer.model_validate_json(recorded)
    # 3 answered both ways: undecided, dropped; 4 was never shown; a repeat of 1 agrees.
    assert stances_by_memory(answer, shown=3) == {1: "contradicting", 2: "neutral"}


@pytest.mark.parametrize(
    "recorded",
    [
        '{"stances": [{"memory": 1, "stance": "agrees"}]}',  # not one of the three
        '{"stances": [{"memory": 0, "stance": "neutral"}]}',  # numbers start at 1
        '{"stances": [{"memory": 1}]}',  # every field required
        '{"verdicts": []}',  # the list is required, nothing else allowed
    ],
)
def test_an_answer_outside_the_contract_is_refused(recorded: str) -> None:
    with pytest.raises(ValidationError):
        StanceAnswer.model_validate_json(recorded)


# --- candidates and the model's verdicts in the check ------------------------------------------


def test_candidates_are_the_pairs_worth_reading_newest_first_and_bounded() -> None:
    record, node = _running_hypothesis()
    nodes = [*CITED, CHORE, QUESTION, BROTHER, HIKING, QUIT, node]
    found = stance_candidates(nodes, [record], NOW)
    # A question and a brother are never evidence, hiking shares nothing, the cited are its own.
    assert [p.memory_id for p in found] == ["n45", "n41"]
    assert found[0].hypothesis_id == node.id and found[0].statement == RUNS
    assert found[0].memory == QUIT.content
    bounded = stance_candidates(nodes, [record], NOW, config=StanceConfig(max_model_pairs=1))
    assert [p.memory_id for p in bounded] == ["n45"]
    # Already counted: not asked again.
    counted = record.model_copy(update={"contradicting": ("n45",)})
    assert [p.memory_id for p in stance_candidates(nodes, [counted], NOW)] == ["n41"]
    # Linked by `contradicts` to a cited memory: the edge decides, not the model.
    assert [p.memory_id for p in stance_candidates(nodes, [record], NOW, edges=[EDGE])] == ["n45"]


def test_a_model_verdict_replaces_the_rules_for_its_pair() -> None:
    record, node = _running_hypothesis()
    nodes = [*CITED, CHORE, QUIT, node]
    plain = plan_hypothesis_checks(nodes, [record], NOW)
    assert plain.writes.hypotheses[0].contradicting == ("n45",)  # the chore: neutral to the rule
    verdicts = {
        (node.id, "n41"): StanceVerdict.CONTRADICTING,
        (node.id, "n45"): StanceVerdict.NEUTRAL,
    }
    judged = plan_hypothesis_checks(nodes, [record], NOW, model_verdicts=verdicts)
    assert judged.writes.hypotheses[0].contradicting == ("n41",)
    assert judged.evidence == 1


def test_support_only_the_model_read_is_marked_and_does_not_confirm_while_stale() -> None:
    """Issue 33: three memories the rule calls neutral, the model supporting. The dialogue never
    surfaced the hypothesis (one shared stem each, two needed): kept active, the support marked
    as the model's; a fourth memory the rule itself reads as support is not marked."""
    record, node = _running_hypothesis()
    later = [
        memory(51, "My colleagues at work say I look so energetic lately.", days_ago=4),
        memory(52, "My morning coffee tastes better after being outside.", days_ago=3),
        memory(53, "The mornings are my favourite part of the day now.", days_ago=2),
    ]
    verdicts = {(node.id, m.id): StanceVerdict.SUPPORTING for m in later}
    plan = plan_hypothesis_checks([*CITED, *later, node], [record], NOW, model_verdicts=verdicts)
    (checked,) = plan.writes.hypotheses
    assert checked.status.value == "active"
    assert set(checked.model_supported) == set(checked.supporting) == {"n51", "n52", "n53"}
    ruled = memory(54, "Another early run before work today, every morning now.", days_ago=1)
    verdicts[(node.id, ruled.id)] = StanceVerdict.SUPPORTING
    plan = plan_hypothesis_checks(
        [*CITED, *later, ruled, node], [record], NOW, model_verdicts=verdicts
    )
    (fact,) = plan.writes.hypotheses
    # The rule's own support surfaced it (shared topics): the model's reading counts again.
    assert fact.status.value == "confirmed"
    assert "n54" in fact.supporting and "n54" not in fact.model_supported


def test_a_contradiction_edge_outranks_the_models_verdict() -> None:
    record, node = _running_hypothesis()
    verdicts = {(node.id, "n41"): StanceVerdict.SUPPORTING}
    plan = plan_hypothesis_checks(
        [*CITED, CHORE, node], [record], NOW, edges=[EDGE], model_verdicts=verdicts
    )
    assert plan.writes.hypotheses[0].contradicting == ("n41",)


# --- the gpu activity ----------------------------------------------------------------------


def _pair(hypothesis: str, memory_id: str, text: str) -> StancePair:
    return StancePair(hypothesis_id=hypothesis, statement=RUNS, memory_id=memory_id, memory=text)


async def test_the_activity_asks_once_per_hypothesis_and_returns_verdicts_by_pair() -> None:
    llm = ScriptedLLM(stances={CHORE.content: "contradicting", QUIT.content: "neutral"})
    pairs = [
        _pair("h1", "n41", CHORE.content),
        _pair("h1", "n44", HIKING.content),  # unanswered: the rule's verdict stands
        _pair("h2", "n45", QUIT.content),
    ]
    out = await SleepModelActivities(llm).judge_stances(JudgeStancesInput(pairs=pairs))
    assert llm.calls == {"StanceAnswer": 2} and out.llm_calls == 2 and out.llm_error is None
    assert {(v.hypothesis_id, v.memory_id): v.verdict for v in out.verdicts} == {
        ("h1", "n41"): StanceVerdict.CONTRADICTING,
        ("h2", "n45"): StanceVerdict.NEUTRAL,
    }


class UnusableLLM:
    model_name = "unusable"

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        raise LLMAnswerInvalidError(answer_type.__name__, "{", "truncated")

    async def unhealthy_reason(self) -> str | None:
        return None


async def test_an_unusable_answer_gives_no_verdicts_and_no_error() -> None:
    model = SleepModelActivities(UnusableLLM())
    out = await model.judge_stances(JudgeStancesInput(pairs=[_pair("h1", "n41", "Running.")]))
    assert out.verdicts == [] and out.llm_calls == 1
    assert out.llm_error is not None and "truncated" in out.llm_error


def test_pairs_seen_later_than_now_are_not_candidates() -> None:
    record, node = _running_hypothesis()
    future = CHORE.model_copy(update={"created_at": NOW + timedelta(hours=1)})
    assert stance_candidates([*CITED, future, node], [record], NOW) == []


@pytest.mark.parametrize(
    ("extraction", "asked"),
    [("structured", False), ("verbatim", False), ("refine", True), ("llm", True)],
)
def test_the_model_judges_stances_where_extraction_uses_the_model_server(
    extraction: Literal["structured", "refine", "llm", "verbatim"], asked: bool
) -> None:
    settings = Settings(extraction=extraction)
    assert settings.model_stance is asked
    # The lifecycle starts with it and hands it to every sleep it starts.
    started = _initial(settings, UserScope(tenant_id="t1", user_id="u1"))
    assert started.state.model_stance is asked
