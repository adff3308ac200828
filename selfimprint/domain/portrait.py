"""The portrait ("mirror") text: belief blocks and the tensions log (the epistemic-memory article).

A belief block is exactly the article's format:

    ## Builder Philosophy
    conf:0.75 | first:2026-03-10 | confirmed:2026-03-25 | challenged:— | perm:durable

    Builds for herself first, monetizes if it generalizes.

Dates are calendar dates; a date never recorded is an em dash. `parse_entry` reads back exactly
what `render_entry` writes, so a portrait the user edited can be checked and re-imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, tzinfo
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from selfimprint.domain.models import (
    MAX_CONTENT_CHARS,
    Belief,
    Permanence,
    Tension,
    TensionKind,
    Unit,
)

MISSING_DATE = "\u2014"  # em dash: "A dash means never."
HEADING = "## "
FIELD_SEPARATOR = " | "
TENSIONS_HEADING = "## Tensions"
NO_TENSIONS = "(none recorded)"
MAX_TITLE_CHARS = 200


class PortraitConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Article, "What a belief looks like": conf:0.75, two decimals.
    confidence_decimals: Annotated[int, Field(ge=1, le=6)] = 2


DEFAULT_PORTRAIT = PortraitConfig()


class PortraitFormatError(ValueError):
    """Text that is not a portrait block; the message says which line and why."""


def _one_line_title(value: str) -> str:
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        raise ValueError("a title is one non-blank line")
    return value


def _normalise_newlines(value: object) -> object:
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


def _block_text(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("a belief needs text")
    if any(line.startswith(HEADING) for line in value.split("\n")):
        raise ValueError(f"a text line may not start with {HEADING!r}: it would open a new block")
    return value


Title = Annotated[str, Field(max_length=MAX_TITLE_CHARS), AfterValidator(_one_line_title)]
BlockText = Annotated[
    str,
    BeforeValidator(_normalise_newlines),
    Field(max_length=MAX_CONTENT_CHARS),
    AfterValidator(_block_text),
]


class PortraitEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: Title
    confidence: Unit
    first: date
    confirmed: date | None = None
    challenged: date | None = None
    permanence: Permanence
    text: BlockText
    # Issue 33: the day a later statement of the user's ended it (Node.valid_until): history,
    # not current. Rendered only when set, so portraits of current beliefs read as before.
    until: date | None = None

    @classmethod
    def from_belief(
        cls,
        title: str,
        text: str,
        belief: Belief,
        *,
        confidence: float | None = None,
        tz: tzinfo = UTC,
        valid_until: datetime | None = None,
    ) -> PortraitEntry:
        """`confidence` overrides the stored one (pass the effective, dormancy-decayed value);
        dates are taken in `tz`, the user's zone for a user-facing portrait."""

        def day(moment: datetime | None) -> date | None:
            return None if moment is None else moment.astimezone(tz).date()

        return cls(
            title=title,
            confidence=belief.confidence if confidence is None else confidence,
            first=belief.first_seen.astimezone(tz).date(),
            confirmed=day(belief.confirmed_at),
            challenged=day(belief.challenged_at),
            permanence=belief.permanence,
            text=text,
            until=day(valid_until),
        )


def _date_field(value: date | None) -> str:
    return MISSING_DATE if value is None else value.isoformat()


def render_entry(entry: PortraitEntry, config: PortraitConfig = DEFAULT_PORTRAIT) -> str:
    meta = FIELD_SEPARATOR.join(
        (
            f"conf:{entry.confidence:.{config.confidence_decimals}f}",
            f"first:{entry.first.isoformat()}",
            f"confirmed:{_date_field(entry.confirmed)}",
            f"challenged:{_date_field(entry.challenged)}",
            f"perm:{entry.permanence.value}",
            *([f"until:{entry.until.isoformat()}"] if entry.until else []),
        )
    )
    return f"{HEADING}{entry.title}\n{meta}\n\n{entry.text}"


def _meta_pattern(decimals: int) -> re.Pattern[str]:
    day = r"\d{4}-\d{2}-\d{2}"
    optional_day = rf"(?:{day}|{MISSING_DATE})"
    permanences = "|".join(p.value for p in Permanence)
    sep = re.escape(FIELD_SEPARATOR)
    return re.compile(
        rf"conf:(?P<conf>\d\.\d{{{decimals}}}){sep}"
        rf"first:(?P<first>{day}){sep}"
        rf"confirmed:(?P<confirmed>{optional_day}){sep}"
        rf"challenged:(?P<challenged>{optional_day}){sep}"
        rf"perm:(?P<perm>{permanences})"
        rf"(?:{sep}until:(?P<until>{day}))?"
    )


def _parse_date(value: str, field: str) -> date | None:
    if value == MISSING_DATE:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise PortraitFormatError(f"{field}: {value!r} is not a calendar date") from error


def parse_entry(block: str, config: PortraitConfig = DEFAULT_PORTRAIT) -> PortraitEntry:
    """One block: heading, metadata line, blank line, text (which may span several lines)."""
    lines = block.replace("\r\n", "\n").strip("\n").split("\n")
    heading, meta, blank, text = lines[0], lines[1:2], lines[2:3], lines[3:]
    if not heading.startswith(HEADING):
        raise PortraitFormatError(f"line 1 must start with {HEADING!r}: {heading!r}")
    match = _meta_pattern(config.confidence_decimals).fullmatch(meta[0]) if meta else None
    if match is None:
        raise PortraitFormatError(f"line 2 is not the metadata line: {meta}")
    if not blank or blank[0].strip():
        raise PortraitFormatError("line 3 must be blank, with the text after it")
    confirmed = match["confirmed"]
    challenged = match["challenged"]
    try:
        return PortraitEntry(
            title=heading.removeprefix(HEADING),
            confidence=float(match["conf"]),
            first=_parse_date(match["first"], "first"),
            confirmed=_parse_date(confirmed, "confirmed"),
            challenged=_parse_date(challenged, "challenged"),
            permanence=Permanence(match["perm"]),
            text="\n".join(text),
            until=_parse_date(match["until"], "until") if match["until"] else None,
        )
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        raise PortraitFormatError(str(error)) from error


def render_portrait(
    entries: Iterable[PortraitEntry], config: PortraitConfig = DEFAULT_PORTRAIT
) -> str:
    return "\n\n".join(render_entry(entry, config) for entry in entries)


def parse_portrait(
    text: str, config: PortraitConfig = DEFAULT_PORTRAIT
) -> tuple[PortraitEntry, ...]:
    """Every belief block of a rendered portrait; a heading line starts a block. The tensions
    log the API appends after the blocks (a top-level `# ` heading, or its own heading) ends
    them: it is read by eye, not parsed."""
    blocks: list[list[str]] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("# ") or line == TENSIONS_HEADING:
            break
        if line.startswith(HEADING):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        elif line.strip():
            raise PortraitFormatError(f"text before the first heading: {line!r}")
    return tuple(parse_entry("\n".join(block), config) for block in blocks)


# --- tensions -----------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_tensions(
    tensions: Iterable[Tension],
    contents: Mapping[str, str],
    *,
    tz: tzinfo = UTC,
) -> str:
    """The tensions log, oldest first; each side shown by its content (or id if unknown).

    Both sides are shown as recorded, with their status and no resolution: the article removed
    "likely resolution" because it pushed the system to smooth contradictions over.
    """
    lines = [TENSIONS_HEADING]
    ordered = sorted(tensions, key=lambda t: (t.detected_at, t.id))
    for tension in ordered:
        said_a, said_b = tension.sides(contents)
        side_a = _one_line(said_a or tension.node_a)
        side_b = _one_line(said_b or tension.node_b)
        detected = tension.detected_at.astimezone(tz).date().isoformat()
        fields = [f"- detected:{detected}", f"status:{tension.status.value}"]
        if tension.kind is not TensionKind.CONTRADICTION:
            fields.append(f"kind:{tension.kind.value}")
        lines.append(FIELD_SEPARATOR.join((*fields, side_a, side_b)))
        if tension.note.strip():
            lines.append(f"  note: {_one_line(tension.note)}")
    if not ordered:
        lines.append(NO_TENSIONS)
    return "\n".join(lines)
