"""docs/domain-defaults.md lists every default of the domain's rule models with its source; it
must cover every field and match the code."""

from __future__ import annotations

import pytest

from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

DEFAULTS = load_script("domain_defaults")


def test_every_default_says_where_it_comes_from() -> None:
    rows = DEFAULTS.collect()
    assert len(rows) > 100
    assert [f"{r.model}.{r.field}" for r in rows if not r.source] == []


def test_the_document_matches_the_code() -> None:
    rendered = DEFAULTS.render(DEFAULTS.collect())
    assert DEFAULTS.DOC.read_text() == rendered, "run scripts/domain_defaults.py"


def test_a_comment_covers_only_the_run_of_fields_below_it() -> None:
    rows = {f"{r.model}.{r.field}": r for r in DEFAULTS.collect()}
    # The §3.3 table comment covers its eight coefficients; the hypothesis rate has its own.
    assert rows["DecayConfig.open_loop"].source.startswith("Spec §3.3 coefficient table")
    assert rows["DecayConfig.hypothesis"].source.startswith("Not in the spec")
    assert rows["DecayConfig.decay_period"].value == "1 d"
