"""A failure a worker sends fits what Temporal keeps of a retrying activity's last failure
(4 KB, else "Failure exceeds size limit."): messages whole, stack traces cut to their innermost
frames, a long cause chain cut to its first links and its root cause."""

from __future__ import annotations

import pytest
from temporalio.api.failure.v1 import Failure
from temporalio.converter import DefaultFailureConverter, PayloadConverter

from selfimprint.adapters.temporal_failures import (
    FAILURE_BUDGET_BYTES,
    MAX_CHAIN,
    BoundedFailureConverter,
)

pytestmark = pytest.mark.unit


def _deep(depth: int) -> int:
    return 1 // 0 if depth == 0 else _deep(depth - 1)


def _chained(links: int) -> BaseException:
    """An error raised over `links - 1` others, each from a deep stack, the root a socket's."""
    try:
        try:
            _deep(40)
        except ZeroDivisionError as exc:
            raise OSError("All connection attempts failed") from exc
    except OSError as err:
        error: BaseException = err
    for n in range(links - 2):
        try:
            try:
                raise error
            except BaseException as inner:
                raise RuntimeError(f"wrapper {n}: " + "detail " * 60) from inner
        except RuntimeError as outer:
            error = outer
    try:
        raise ConnectionError("LLM unavailable at http://vllm:8000/v1 (connection)") from error
    except ConnectionError as top:
        return top


def _messages(failure: Failure) -> list[str]:
    out = [failure.message]
    while failure.HasField("cause"):
        failure = failure.cause
        out.append(failure.message)
    return out


def _convert(converter: DefaultFailureConverter, error: BaseException) -> Failure:
    failure = Failure()
    converter.to_failure(error, PayloadConverter.default, failure)
    return failure


def test_the_sdks_own_failure_is_over_the_servers_limit() -> None:
    """Why the converter exists: the chain as the SDK writes it is over 4 KB."""
    assert _convert(DefaultFailureConverter(), _chained(7)).ByteSize() > 4096


@pytest.mark.parametrize("links", [2, MAX_CHAIN, 7])
def test_a_chain_fits_with_the_products_message_and_the_root_cause(links: int) -> None:
    failure = _convert(BoundedFailureConverter(), _chained(links))
    assert failure.ByteSize() <= FAILURE_BUDGET_BYTES
    messages = _messages(failure)
    assert messages[0] == "LLM unavailable at http://vllm:8000/v1 (connection)"
    assert messages[-1].endswith("by zero")
    assert len(messages) == min(links + 1, MAX_CHAIN)  # the root's ZeroDivisionError counts
    # The stack trace that is kept ends with the frame that raised.
    assert failure.stack_trace.rstrip().endswith("from error")


def test_a_short_failure_is_left_as_it_is() -> None:
    try:
        raise ValueError("bad input")
    except ValueError as exc:
        error = exc
    bounded = _convert(BoundedFailureConverter(), error)
    assert bounded == _convert(DefaultFailureConverter(), error)
