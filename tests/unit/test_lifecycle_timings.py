"""Lifecycle timings: spec defaults, validated, and built from Settings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from selfimprint.config import Settings
from selfimprint.domain.lifecycle_timings import LifecycleTimings


def test_defaults_are_the_specs() -> None:
    timings = LifecycleTimings()
    assert timings.session_gap == timedelta(minutes=30)
    assert (timings.warm_after, timings.cold_after) == (timedelta(days=7), timedelta(days=30))
    assert timings.compaction_every == timedelta(days=7)


def test_settings_build_them(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, session_gap_minutes=45, tier_warm_after_days=3, reconcile_every_hours=6
    )
    timings = settings.lifecycle_timings()
    assert timings.session_gap == timedelta(minutes=45)
    assert timings.warm_after == timedelta(days=3)
    assert timings.reconcile_every == timedelta(hours=6)
    assert Settings(data_dir=tmp_path).lifecycle_timings() == LifecycleTimings()


def test_inconsistent_values_are_refused() -> None:
    with pytest.raises(ValidationError, match="positive"):
        LifecycleTimings(session_gap=timedelta(0))
    with pytest.raises(ValidationError, match="cold_after"):
        LifecycleTimings(warm_after=timedelta(days=10), cold_after=timedelta(days=5))
