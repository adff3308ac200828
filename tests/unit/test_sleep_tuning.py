"""Sleep tuning file: defaults without one, overrides with one, typos refused."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from selfimprint.domain.patterns import PatternConfig
from selfimprint.domain.sleep_tuning import SleepTuning


def test_no_file_means_the_defaults() -> None:
    assert SleepTuning.load(None) == SleepTuning()
    assert SleepTuning().patterns == PatternConfig()


def test_a_file_overrides_single_numbers(tmp_path: Path) -> None:
    path = tmp_path / "tuning.json"
    path.write_text('{"patterns": {"min_mentions": 4}, "triggers": {"lead": "P2D"}}')
    tuning = SleepTuning.load(path)
    assert tuning.patterns.min_mentions == 4
    assert tuning.patterns.window == timedelta(days=7)  # untouched
    assert tuning.triggers.lead == timedelta(days=2)


def test_a_typo_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tuning.json"
    path.write_text('{"patterns": {"min_mention": 4}}')
    with pytest.raises(ValidationError, match="min_mention"):
        SleepTuning.load(path)
