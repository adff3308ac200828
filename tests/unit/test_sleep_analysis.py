"""Pure sleep-phase rules: pattern detection, connection inference, recalibration targets,
scheduled triggers and open-loop questions, and the schedule simulation."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Valence
from selfimprint.domain.patterns import (
    PatternKind,
    detect_patterns,
    infer_connections,
    recalibration_targets,
)
from selfimprint.domain.scheduled_triggers import dates_in, plan_open_loop_questions, plan_triggers
from selfimprint.domain.sleep_policy import Plan
from selfimprint.domain.sleep_simulation import simulate_user

pytestmark = pytest.mark.unit
NOW = datetime(2025, 3, 20, 12, tzinfo=UTC)
TZ = ZoneInfo("UTC")


def node(nid: str, kind: NodeType, text: str, at: datetime, msg: str) -> Node:
    return Node(
        id=nid,
        user_id="u",
        type=kind,
        content=text,
        valence=Valence.NEGATIVE if kind is NodeType.EMOTIONAL_NOTE else None,
        weight_at=at,
        created_at=at,
        sources=(msg,),
        belief=Belief(first_seen=at),
    )


def week() -> list[Node]:
    nodes = []
    for day in (1, 2, 3):
        at = NOW - timedelta(days=day, hours=-9)  # evenings, 21:00
        nodes += [
            node(f"e{day}", NodeType.EMOTIONAL_NOTE, "Feeling stressed again", at, f"m{day}"),
            node(f"p{day}", NodeType.PERSON, "Ivan my manager pushed back", at, f"m{day}"),
        ]
    nodes.append(
        node("old", NodeType.FACT, "Stressed stressed stressed", NOW - timedelta(days=9), "m9")
    )
    return nodes


def test_patterns_of_the_week() -> None:
    patterns = detect_patterns("u", week(), NOW, TZ)
    keys = {(p.kind, p.key) for p in patterns}
    assert (PatternKind.RECURRING_TOPIC, "stressed") in keys
    assert (PatternKind.TIME_OF_DAY, "stressed@evening") in keys
    assert (PatternKind.CO_OCCURRENCE, "ivan+stressed") in keys
    recurring = next(p for p in patterns if p.key == "stressed")
    assert recurring.mentions == 3  # the 9-day-old memory is outside the window
    assert recurring.sources == ("m1", "m2", "m3")
    # two words of the same memories are not a correlation
    assert (PatternKind.CO_OCCURRENCE, "feeling+stressed") not in keys


def test_inferred_edges_follow_co_occurrence_and_skip_connected_pairs() -> None:
    nodes = week()
    existing = Edge(source_id="e1", target_id="p1", type=EdgeType.ASSOCIATED_WITH, created_at=NOW)
    edges = infer_connections(detect_patterns("u", nodes, NOW, TZ), nodes, [existing], NOW)
    assert {(e.source_id, e.target_id) for e in edges} == {("e2", "p2"), ("e3", "p3")}
    assert all(e.type is EdgeType.CAUSED_BY and e.is_inferred for e in edges)
    assert all(0.4 <= e.confidence <= 0.6 for e in edges)
    # deterministic: the same graph plans the same edges
    assert edges == infer_connections(detect_patterns("u", nodes, NOW, TZ), nodes, [existing], NOW)


def test_recalibration_boosts_central_and_fades_drifted() -> None:
    patterns = detect_patterns("u", week(), NOW, TZ)
    plan = recalibration_targets(patterns, (), previous_pattern_nodes=["e1", "gone"])
    assert "e1" in plan.central and plan.drifted == ("gone",)


def test_dates_in_text() -> None:
    written = date(2025, 3, 20)
    assert dates_in("Interview on March 28", written) == (date(2025, 3, 28),)
    assert dates_in("собеседование 28 марта", written) == (date(2025, 3, 28),)
    assert dates_in("due 2025-04-02 and 5.04", written) == (date(2025, 4, 2), date(2025, 4, 5))
    assert dates_in("back on 1 March", written) == (date(2026, 3, 1),)  # next such day
    assert dates_in("nothing here, 31.02", written) == ()


def test_a_dated_event_becomes_a_window_and_a_question() -> None:
    event = node("i", NodeType.EVENT, "Job interview on March 28", NOW - timedelta(hours=2), "m1")
    loop = node("l", NodeType.OPEN_LOOP, "Whether to move", NOW - timedelta(hours=1), "m2")
    (trigger,) = plan_triggers("u", [event, loop], [], NOW, TZ)
    assert trigger.event_date == date(2025, 3, 28)
    assert trigger.activate_from == datetime(2025, 3, 27, tzinfo=UTC)  # spec: from March 27
    questions = plan_open_loop_questions("u", [event, loop], [trigger], NOW)
    assert [q.node_id for q in questions] == ["l", "i"]
    assert all(q.sources for q in questions)


def test_a_relative_day_is_resolved_on_the_users_clock() -> None:
    # Said at 23:30 UTC on March 19, 00:30 on March 20 in Berlin: "tomorrow" is March 21 ...
    said = datetime(2025, 3, 19, 23, 30, tzinfo=UTC)
    berlin = ZoneInfo("Europe/Berlin")
    event = node("i", NodeType.EVENT, "The interview is tomorrow, I barely prepared.", said, "m1")
    (trigger,) = plan_triggers("u", [event], [], NOW - timedelta(hours=12), berlin)
    assert trigger.event_date == date(2025, 3, 21)
    # ... and in Russian, "послезавтра" the day after that.
    ru = node("r", NodeType.EVENT, "Послезавтра у меня операция на колене.", said, "m2")
    (trigger,) = plan_triggers("u", [ru], [], NOW - timedelta(hours=12), berlin)
    assert trigger.event_date == date(2025, 3, 22)


def test_simulation_paid_daily_user() -> None:
    start = datetime(2025, 1, 6, tzinfo=UTC)
    messages = [(start + timedelta(days=d, hours=10), 6) for d in range(14)]
    result = simulate_user(Plan.PAID, messages, start, start + timedelta(days=14), TZ)
    assert result.full > 0 and result.light == 0
    silent = simulate_user(Plan.PAID, messages[:1], start, start + timedelta(days=60), TZ)
    assert silent.passes < 5  # sleep turns off after 30 silent days


def test_prepared_questions_are_written_in_the_language_of_their_memory() -> None:
    # The context serves them as they are, so a Russian open loop gets a Russian question.
    ru_event = node("r", NodeType.EVENT, "Собеседование 28 марта, я волнуюсь", NOW, "m1")
    ru_loop = node("l", NodeType.OPEN_LOOP, "Не знаю, переезжать ли в Казань", NOW, "m2")
    en_loop = node("e", NodeType.OPEN_LOOP, "Not sure whether to move to Leeds", NOW, "m3")
    (trigger,) = plan_triggers("u", [ru_event], [], NOW, TZ)
    by_node = {
        q.node_id: q.question
        for q in plan_open_loop_questions("u", [ru_event, ru_loop, en_loop], [trigger], NOW)
    }
    assert by_node["l"].startswith("Раньше пользователь упоминал: «Не знаю, переезжать")
    assert by_node["r"].startswith("Скоро, 28 марта: «Собеседование")
    assert (
        by_node["e"]
        == 'Earlier the user mentioned: "Not sure whether to move to Leeds". Is it settled?'
    )
