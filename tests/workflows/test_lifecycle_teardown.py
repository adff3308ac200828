"""A lifecycle run torn down in the middle of an operation (evicted from the worker's cache, or
its coroutine collected after the worker stopped) closes quietly: Python throws GeneratorExit
into the coroutine, and code that then calls the workflow API (`workflow.now()`, outside the
workflow's event loop) turns a clean close into "coroutine ignored GeneratorExit"."""

from __future__ import annotations

from collections.abc import Generator
from types import SimpleNamespace

import pytest

from workflows.user_lifecycle import UserLifecycleWorkflow

pytestmark = pytest.mark.workflows


class _Pending:
    """An await that never completes: an activity the run was waiting on."""

    def __await__(self) -> Generator[None, None, None]:
        yield


def test_a_run_torn_down_during_an_operation_closes_without_workflow_calls() -> None:
    run = object.__new__(UserLifecycleWorkflow)  # the state a cached run holds, no event loop
    run._operation = None
    forgets = SimpleNamespace(last_operation_ended_at=None)
    run._state = SimpleNamespace(forgets=forgets)  # type: ignore[assignment]

    async def extraction() -> None:
        with run._operating("extraction"):
            await _Pending()

    coroutine = extraction()
    coroutine.send(None)
    assert run._operation == "extraction"
    coroutine.close()  # raised _NotInWorkflowEventLoopError while the end time was recorded
    assert run._operation is None
    assert forgets.last_operation_ended_at is None  # nothing recorded on a dead run
