"""The LoCoMo benchmark's evidence ages (scripts/bench_locomo.py, issue 32): active days on the
user's decay clock from a question's oldest evidence turn to the moment it is asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.unit.scripts import load_script

data = load_script("locomo_data")
bench = load_script("bench_locomo")

pytestmark = pytest.mark.unit

START = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def _conversation() -> Any:
    """Sessions on day 0, day 1 and day 31: the clock runs days 0-8, stands still to day 31."""
    sessions = tuple(
        data.Session(
            number=n,
            started_at=START + timedelta(days=day),
            turns=(
                data.Turn(
                    id=f"D{n}:1",
                    dia_id=f"D{n}:1",
                    session=n,
                    text=f"A: turn of session {n}",
                    sent_at=START + timedelta(days=day),
                ),
            ),
        )
        for n, day in ((1, 0), (2, 1), (3, 31))
    )
    questions = (
        data.Question(
            index=0, category=1, text="q0", evidence=("D1:1", "D3:1"), dropped_evidence=0
        ),
        data.Question(index=1, category=1, text="q1", evidence=("D3:1",), dropped_evidence=0),
    )
    return data.Conversation(sample_id="conv-x", sessions=sessions, questions=questions)


def test_ages_count_the_days_the_decay_clock_ran_from_the_oldest_evidence() -> None:
    conversation = _conversation()
    asked = START + timedelta(days=31, hours=2)
    ages = bench.evidence_ages(conversation, conversation.questions, "dataset", asked)
    oldest, recent = (ages[bench.question_key(conversation, q)] for q in conversation.questions)
    assert oldest == pytest.approx(8.0 + 2 / 24)  # days 0-8 ran, 9-31 paused, then 2 h
    assert recent == pytest.approx(2 / 24)


def test_nothing_ages_when_every_turn_is_dated_now() -> None:
    conversation = _conversation()
    ages = bench.evidence_ages(conversation, conversation.questions, "now", datetime.now(UTC))
    assert max(ages.values()) < 1 / 24
