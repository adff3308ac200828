"""The operator's tuning document: defaults, overrides, refusals, and the older sleep file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from selfimprint.config import Settings
from selfimprint.domain.patterns import PatternConfig
from selfimprint.domain.scoring import ScoringConfig
from selfimprint.domain.tuning import DomainTuning

pytestmark = pytest.mark.unit


def test_no_file_is_the_spec_defaults_and_a_dump_loads_back(tmp_path: Path) -> None:
    assert DomainTuning.load(None) == DomainTuning()
    path = tmp_path / "all.json"
    path.write_text(DomainTuning().model_dump_json())
    assert DomainTuning.load(path) == DomainTuning()


def test_a_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"scoring": {"top_k": 7}, "patterns": {"min_mentions": 4}}))
    tuning = DomainTuning.load(path)
    assert tuning.scoring == ScoringConfig(top_k=7)
    assert tuning.patterns == PatternConfig(min_mentions=4)
    assert tuning.context == DomainTuning().context


@pytest.mark.parametrize(
    "document",
    [{"scorng": {}}, {"scoring": {"top_kk": 3}}, {"scoring": {"top_k": -1}}],
    ids=["unknown section", "unknown key", "out of range"],
)
def test_typos_and_bad_numbers_fail_at_start(tmp_path: Path, document: object) -> None:
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValidationError):
        DomainTuning.load(path)


def test_the_sleep_file_wins_over_the_whole_documents_sleep_sections(tmp_path: Path) -> None:
    whole, sleep = tmp_path / "tuning.json", tmp_path / "sleep.json"
    whole.write_text(json.dumps({"patterns": {"min_mentions": 4}, "scoring": {"top_k": 9}}))
    sleep.write_text(json.dumps({"patterns": {"min_mentions": 6}}))
    tuning = DomainTuning.load(whole, sleep)
    assert tuning.patterns.min_mentions == 6
    assert tuning.scoring.top_k == 9


def test_settings_read_the_files_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"context": {"budget_tokens": 300}}))
    monkeypatch.setenv("SELFIMPRINT_TUNING_FILE", str(path))
    assert Settings().domain_tuning().context.budget_tokens == 300
