"""Replays recorded lifecycle histories against the current workflow code: a change that breaks
determinism for running workflows fails here. Refresh the histories on purpose with
`SELFIMPRINT_RECORD_HISTORIES=1 pytest tests/workflows` (and add a `workflow.patched` branch if
such workflows may be running in production)."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from tests.workflows.support import TierMoveStub
from workflows.compaction import CompactionWorkflow
from workflows.deletion import DeletionWorkflow, ErasureSweepWorkflow
from workflows.sleep_phase import SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow

pytestmark = pytest.mark.workflows

# lifecycle_extraction_batches_by_value: batches, their extraction and vectors carried in the
# history, as before issue 35 (now behind workflow.patched("ingestion-by-reference"));
# lifecycle_extraction_batches: the same run with the batches staged, passed by reference.
# sleep_pass_by_value: a full pass with the model's inputs and answers (memories, proposals,
# stance pairs) in its history, as before workflow.patched("sleep-stage"); sleep_pass_staged:
# such a pass with them staged (tests/workflows/test_sleep_stage.py records both).
HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_histories_are_present() -> None:
    assert len(HISTORIES) >= 2


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_replay(path: Path) -> None:
    replayer = Replayer(
        workflows=[
            UserLifecycleWorkflow,
            SleepPhaseWorkflow,
            CompactionWorkflow,
            TierMoveStub,
            # deletion_before_collective_withdraw: an erasure recorded before it withdrew the
            # user's CollectiveImprint pseudonyms (behind workflow.patched("collective-withdraw")).
            DeletionWorkflow,
            ErasureSweepWorkflow,
        ],
        data_converter=pydantic_data_converter,
    )
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    await replayer.replay_workflow(history)
