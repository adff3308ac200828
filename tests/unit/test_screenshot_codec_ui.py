"""scripts/screenshot_codec_ui.py: what it reads from a history and how it judges the page (the
browser part runs against the dev stack only: docs/operations.md, codec section)."""

from __future__ import annotations

import json

import pytest
from temporalio.api.common.v1 import Header, Payload, Payloads
from temporalio.api.history.v1 import ActivityTaskScheduledEventAttributes, HistoryEvent

from selfimprint.codec_server import redact_user_text
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

shot = load_script("screenshot_codec_ui")

BATCH = {
    "batch": {
        "user_id": "u1",
        "messages": [{"id": "m1", "text": "I am nervous about Friday"}],
        "recent": [{"id": "x", "content": "Works at Initech"}],
    },
    "memories": ["Has a dog named Rex", {"content": "Hates Mondays"}],
}


def test_every_payload_of_an_event_is_found() -> None:
    first, second, header = (Payload(data=bytes([i])) for i in range(3))
    event = HistoryEvent(
        event_id=5,
        activity_task_scheduled_event_attributes=ActivityTaskScheduledEventAttributes(
            input=Payloads(payloads=[first, second]), header=Header(fields={"trace": header})
        ),
    )
    assert sorted(p.data for p in shot.payloads_in(event)) == [b"\x00", b"\x01", b"\x02"]


def test_the_texts_it_looks_for_are_the_ones_the_codec_server_redacts() -> None:
    texts = shot.user_texts(BATCH)
    assert texts == {
        "I am nervous about Friday",
        "Works at Initech",
        "Has a dog named Rex",
        "Hates Mondays",
    }
    plain = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(BATCH).encode())
    redacted, _ = redact_user_text(plain)
    assert all(t.startswith("[redacted ") for t in shot.user_texts(json.loads(redacted.data)))


def expected() -> object:
    return shot.Expected(
        workflow_id="user-demo-u1",
        run_id="r",
        tenant_id="demo",
        user_id="u1",
        ciphertext="bY7PaDfB3cE2jrH1kVloZt2D",
        user_texts=frozenset({"I am nervous about Friday"}),
        text_events=(28,),
    )


def test_decoded_input_passes_and_ciphertext_fails() -> None:
    decoded = '{\n  "state": {\n    "tenant_id": "demo",\n    "user_id": "u1",'
    assert shot.input_problems(decoded, "page " + decoded, expected()) == []
    sealed = '"bY7PaDfB3cE2jrH1kVloZt2DOTFH4P4eyIfkBz8z"'
    problems = shot.input_problems(sealed, sealed, expected())
    assert len(problems) == 3 and "ciphertext" in problems[2]
    other_user = decoded.replace('"u1"', '"u2"')
    assert shot.input_problems(other_user, other_user, expected()) == [
        'the Input card does not show "user_id": "u1"'
    ]


def test_a_readable_user_text_is_reported() -> None:
    assert shot.shown_user_texts('"text": "[redacted 25 chars]"', expected()) == []
    shown = '"text": "I am nervous about Friday"'
    assert shot.shown_user_texts(shown, expected()) == ["I am nervous about Friday"]
