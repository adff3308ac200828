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


def test_each_calibrated_number_is_a_field_shown_beside_the_spec() -> None:
    """Issue 32: the calibrated numbers are listed with the spec's value and the shipped one,
    which is read from the model (a renamed field fails here, not in a reader's hands)."""
    assert DEFAULTS.CALIBRATIONS, "issue 32's calibration table is empty"
    table = "\n".join(DEFAULTS.calibration_table())
    for c in DEFAULTS.CALIBRATIONS:
        assert c.field in c.model.model_fields, f"{c.model.__name__}.{c.field}"
        assert c.spec and c.tried and c.found
        shipped = DEFAULTS._show(DEFAULTS._field_default(c.model, c.field))
        assert f"| `{c.model.__name__}.{c.field}` | {c.spec} | {shipped} |" in table
