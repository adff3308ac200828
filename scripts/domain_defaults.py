"""Every default of the domain's rule models, with the spec section it comes from.

    .venv/bin/python scripts/domain_defaults.py [--check]

Reads each config model's source: the comment block right above a field (or above the run of
fields it belongs to) is where that field's number comes from. A model that is a section of
the operator's tuning file (`DomainTuning`) says which. Writes docs/domain-defaults.md;
`--check` exits 1 when the file is stale, a field has no such comment, or a tuning section's
model is missing from MODELS.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import io
import sys
import tokenize
from dataclasses import dataclass
from datetime import time, timedelta
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from selfimprint.domain.belief import BeliefConfig
from selfimprint.domain.collective import CollectiveConfig
from selfimprint.domain.collective_patterns import CollectivePatternConfig
from selfimprint.domain.compaction.config import CompactionConfig
from selfimprint.domain.compaction.entropy import EntropyConfig
from selfimprint.domain.context import ContextConfig
from selfimprint.domain.corrections import CorrectionConfig
from selfimprint.domain.decay import DecayConfig
from selfimprint.domain.deleted_memories import DeletedMemoryConfig
from selfimprint.domain.grounding import GroundingConfig
from selfimprint.domain.hypotheses import HypothesisPolicy
from selfimprint.domain.inference_policy import InferencePolicyConfig
from selfimprint.domain.ingestion.config import IngestionConfig
from selfimprint.domain.language import LanguageConfig
from selfimprint.domain.lifecycle_timings import LifecycleTimings
from selfimprint.domain.monthly_summary import SummaryConfig
from selfimprint.domain.patterns import PatternConfig
from selfimprint.domain.portrait import PortraitConfig
from selfimprint.domain.restatement import RestatementConfig
from selfimprint.domain.scheduled_triggers import TriggerConfig
from selfimprint.domain.scoring import ScoringConfig
from selfimprint.domain.session_review import ReviewConfig
from selfimprint.domain.sleep_planning import HypothesisFormationConfig
from selfimprint.domain.sleep_policy import SleepPolicy
from selfimprint.domain.smart_skip import SmartSkipPolicy
from selfimprint.domain.stance import StanceConfig
from selfimprint.domain.structured.extractor import StructuredConfig
from selfimprint.domain.synx_layout import PartitionPolicy
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.verbatim_extraction import VerbatimConfig

MODELS: list[type[BaseModel]] = [
    DecayConfig, ScoringConfig, BeliefConfig, HypothesisPolicy, SleepPolicy, SmartSkipPolicy,
    InferencePolicyConfig, CompactionConfig, EntropyConfig, CollectiveConfig, PortraitConfig,
    CorrectionConfig, PatternConfig, TriggerConfig, IngestionConfig, ContextConfig,
    VerbatimConfig, StructuredConfig, RestatementConfig, GroundingConfig, LanguageConfig,
    LifecycleTimings, PartitionPolicy, HypothesisFormationConfig, StanceConfig, ReviewConfig,
    SummaryConfig, CollectivePatternConfig, DeletedMemoryConfig,
]  # fmt: skip
DOC = Path(__file__).resolve().parents[1] / "docs" / "domain-defaults.md"


@dataclass(frozen=True)
class Default:
    model: str
    field: str
    value: str
    source: str  # the comment that says where the number comes from; "" when none


@dataclass(frozen=True)
class Calibration:
    """A number issue 32 calibrated on LoCoMo dev with the clock running (docs/decisions.md,
    "Calibrating the curves and the increments"): the spec's value beside the shipped one,
    which is read from the model, so this table cannot drift from the code."""

    model: type[BaseModel]
    field: str
    spec: str  # the spec's number, or "none given"
    tried: str  # the values tried
    found: str  # what they showed, and where the figures are


CALIBRATIONS: list[Calibration] = [
    Calibration(
        DecayConfig,
        "fact",
        "0.92",
        "0.95 and 0.97 (event 0.97 and 0.98 with them), offline over one ingestion",
        "+0.002 at 400 tokens (a81c9e3's ingestion; BENCHMARKS.md, \"Recognition is a specific "
        'match"): a faded fact comes back when a question singles it out, so a slower curve '
        "buys almost nothing",
    ),
    Calibration(
        DecayConfig,
        "event",
        "0.95",
        "0.97 and 0.98 with the fact rows",
        "tried with the fact rows: +0.002 (0.95 / 0.97), +0.012 (0.97 / 0.98, under a "
        "similarity-led split, 7159724)",
    ),
    Calibration(
        DecayConfig,
        "significance_threshold",
        "0.8",
        "0.65 (every dated event significant, 27 of 408 events re-marked), offline over "
        "743880e's ingestion",
        "0.657 at 400 tokens and an evidence share of 0.130 either way: the structured reader "
        "never gives an event more than 0.7, so only a model's importance reaches 0.8",
    ),
    Calibration(
        DecayConfig,
        "reinforcement_step",
        "0.15",
        "0.05 and 0.30 (a re-mention and a recall alike), with the centrality rows, through "
        "the API in one run",
        "0.657 and 0.658 at 400 tokens (paired +0.001, 1 question of 760), evidence share 0.130 "
        "both; the shipped build read 0.657: only 58 of 2,871 memories were ever re-mentioned",
    ),
    Calibration(
        PatternConfig,
        "central_boost",
        'none given ("a boost")',
        "0.03 and 0.25, with the step rows",
        "as for the step: 1,369 and 1,359 memories faded, recall 0.657 and 0.658",
    ),
    Calibration(
        PatternConfig,
        "drift_multiplier",
        'none given ("a temporary decay multiplier")',
        "0.95 and 0.7, with the step rows",
        "as for the step",
    ),
    Calibration(
        ScoringConfig,
        "similarity_weight",
        "0.5 (with 0.2 recency, 0.3 weight)",
        "0.8 / 0.1 / 0.1, 0.9 / 0.05 / 0.05, 1 / 0 / 0, offline",
        "worth +0.20 while the weight term read the decayed weight; with the stored weight "
        "(`decayed_weight_in_score` false) the spec's split reads 0.657 against 0.660 with "
        "nothing faded, and the similarity-led splits broke four scenarios (docs/decisions.md)",
    ),
]


def _comments_above(lines: list[str], lineno: int) -> list[str]:
    out: list[str] = []
    i = lineno - 2  # the line above the field, 0-based
    while i >= 0 and lines[i].strip().startswith("#"):
        out.insert(0, lines[i].strip().lstrip("#").strip())
        i -= 1
    return out


def _trailing_comment(lines: list[str], stmt: ast.AnnAssign) -> list[str]:
    """A `# ...` at the end of the field's last line (found by tokenizing, not by searching for
    `#`, which may sit inside a string)."""
    last = (stmt.end_lineno or stmt.lineno) - 1
    tokens = tokenize.generate_tokens(io.StringIO(lines[last].strip() + "\n").readline)
    try:
        return [t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT]
    except tokenize.TokenError:
        return []


def _field_comments(model: type[BaseModel]) -> dict[str, str]:
    source = inspect.getsource(model)
    lines = source.splitlines()
    tree = ast.parse(source)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    found: dict[str, str] = {}
    current = ""
    previous_end = -1
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            current, previous_end = "", -1
            continue
        above = _comments_above(lines, stmt.lineno) or _trailing_comment(lines, stmt)
        if above:
            current = " ".join(above)
        elif stmt.lineno != previous_end + 1:
            current = ""  # a blank line or other code ends the run a comment covers
        found[stmt.target.id] = current
        previous_end = stmt.end_lineno or stmt.lineno
    return found


def _show(value: Any) -> str:
    if isinstance(value, timedelta):
        seconds = int(value.total_seconds())
        for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
            if seconds and seconds % size == 0:
                return f"{seconds // size} {unit}"
        return f"{value.total_seconds()} s"
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, BaseModel):
        return "{" + ", ".join(f"{k}={_show(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "; ".join(_show(v) for v in value)
    if isinstance(value, (frozenset, set)):
        return ", ".join(sorted(str(v) for v in value))
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{_show(k)}: {_show(v)}" for k, v in value.items())
    return repr(value)


def _nested_models(value: Any) -> list[type[BaseModel]]:
    items = value if isinstance(value, tuple) else (value,)
    return [type(v) for v in items if isinstance(v, BaseModel)]


def collect() -> list[Default]:
    """Every field of MODELS and of the models nested in them (each model once, in that order)."""
    rows = []
    queue, seen = list(MODELS), set(MODELS)
    while queue:
        model = queue.pop(0)
        comments = _field_comments(model)
        instance = model() if _constructible(model) else None
        for name in model.model_fields:
            value = getattr(instance, name) if instance is not None else _field_default(model, name)
            source = comments.get(name, "")
            if model.model_fields[name].is_required():
                source = source or "set by the default of the model that holds it (above)"
            rows.append(Default(model.__name__, name, _show(value), source))
            for nested in _nested_models(value):
                if nested not in seen:
                    seen.add(nested)
                    queue.append(nested)
    return rows


def _constructible(model: type[BaseModel]) -> bool:
    return all(not f.is_required() for f in model.model_fields.values())


def _field_default(model: type[BaseModel], name: str) -> Any:
    field = model.model_fields[name]
    return "(required: one per row)" if field.is_required() else field.get_default()


def tuning_sections() -> dict[str, str]:
    """Model name -> the `DomainTuning` section (SELFIMPRINT_TUNING_FILE) that overrides it."""
    sections: dict[str, str] = {}
    for name, field in DomainTuning.model_fields.items():
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel), name
        sections[model.__name__] = name
    return sections


def calibration_table() -> list[str]:
    if not CALIBRATIONS:
        return []
    out = [
        "",
        "## Calibrated on LoCoMo dev with the clock running (issue 32)",
        "",
        'Procedure: docs/decisions.md, "Calibrating the curves and the increments". The shipped',
        "column is read from the code; the spec's number stays where the data could not tell it",
        "from the values tried.",
        "",
        "| number | spec | shipped | tried | what it showed |",
        "|---|---|---|---|---|",
    ]
    for c in CALIBRATIONS:
        shipped = _show(_field_default(c.model, c.field))
        cells = (f"`{c.model.__name__}.{c.field}`", c.spec, shipped, c.tried, c.found)
        out.append("| " + " | ".join(text.replace("|", "\\|") for text in cells) + " |")
    return out


def render(rows: list[Default]) -> str:
    sections = tuning_sections()
    out = [
        "# Domain defaults",
        "",
        "Every number the domain's rules use, its default, and where it comes from (spec section",
        'or "project choice" with the reason). Generated from the config models\' source by',
        "`.venv/bin/python scripts/domain_defaults.py`; a unit test fails when it is stale.",
        'Sections refer to ../shared/spec/ (the whitepaper; "article" is the epistemic-memory',
        "article).",
    ]
    out += calibration_table()
    model = ""
    for row in rows:
        if row.model != model:
            model = row.model
            out += ["", f"## {model}", ""]
            if model in sections:
                out += [f"Tuning file section: `{sections[model]}`.", ""]
            out += ["| field | default | from |", "|---|---|---|"]
        value, source = (text.replace("|", "\\|") for text in (row.value, row.source))
        out.append(f"| `{row.field}` | {value} | {source} |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    rows = collect()
    missing = [f"{r.model}.{r.field}" for r in rows if not r.source]
    listed = {r.model for r in rows}
    unlisted = [f"{s} ({m})" for m, s in tuning_sections().items() if m not in listed]
    text = render(rows)
    if args.check:
        stale = not DOC.exists() or DOC.read_text() != text
        for name in missing:
            sys.stderr.write(f"no comment says where {name}'s default comes from\n")
        for name in unlisted:
            sys.stderr.write(f"tuning section {name} is not in MODELS\n")
        if stale:
            sys.stderr.write(f"{DOC} is stale: run scripts/domain_defaults.py\n")
        raise SystemExit(1 if (missing or unlisted or stale) else 0)
    DOC.write_text(text)
    sys.stderr.write(f"wrote {DOC} ({len(rows)} defaults, {len(missing)} without a source)\n")
    for name in missing:
        sys.stderr.write(f"  no source: {name}\n")


if __name__ == "__main__":
    main()
