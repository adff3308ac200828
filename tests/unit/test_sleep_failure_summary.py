"""A failed sleep pass says which activity failed and why (`sleep status` shows it), not the
wrapper's "Activity task failed"."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from workflows.lifecycle_sleep import _what_failed

pytestmark = pytest.mark.unit


def _activity_error(cause: BaseException) -> ActivityError:
    error = ActivityError(
        "Activity task failed",
        scheduled_event_id=5,
        started_event_id=6,
        identity="worker",
        activity_type="sleep.detect_patterns",
        activity_id="1",
        retry_state=RetryState.MAXIMUM_ATTEMPTS_REACHED,
    )
    error.__cause__ = cause
    return error


def test_what_the_activity_raised_and_the_activity_are_named() -> None:
    root = ApplicationError("Couldn't connect to 127.0.0.1:7687", type="ServiceUnavailable")
    assert _what_failed(_activity_error(root)) == (
        "sleep.detect_patterns: Couldn't connect to 127.0.0.1:7687"
    )


def test_the_products_error_is_named_not_the_library_error_under_it() -> None:
    raised = ApplicationError(
        "LLM unavailable at http://vllm:8000/v1 (connection): Connection error.",
        type="LLMUnavailableError",
    )
    raised.__cause__ = ApplicationError("Connection error.", type="APIConnectionError")
    raised.__cause__.__cause__ = ApplicationError("All connection attempts failed", type="OSError")
    assert _what_failed(_activity_error(raised)) == (
        "sleep.detect_patterns: LLM unavailable at http://vllm:8000/v1 (connection): "
        "Connection error."
    )


def test_a_failure_outside_an_activity_is_its_own_message() -> None:
    assert _what_failed(ApplicationError("bad input")) == "bad input"
    assert _what_failed(None) == "unknown error"
