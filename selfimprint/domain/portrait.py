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

from selfimprint.domain.language import detect_language
from selfimprint.domain.models import (
    MAX_CONTENT_CHARS,
    Belief,
    NodeType,
    Permanence,
    Tension,
    TensionKind,
    Unit,
)

MISSING_DATE = "\u2014"  # em dash: "A dash means never."
HEADING = "## "
FIELD_SEPARATOR = " | "
TENSIONS_HEADING = "## Tensions"
# Issue 36: the portrait's own words (each entry's type, the tensions heading) in the user's
# language, as the context's fixed text is (domain.context's templates: en, ru, uk).
_TYPE_LABELS: dict[str, dict[NodeType, str]] = {
    "en": {
        NodeType.FACT: "Fact",
        NodeType.EVENT: "Event",
        NodeType.PERSON: "Person",
        NodeType.OPEN_LOOP: "Open loop",
        NodeType.EMOTIONAL_NOTE: "Emotional note",
        NodeType.HYPOTHESIS: "Hypothesis",
    },
    "ru": {
        NodeType.FACT: "Факт",
        NodeType.EVENT: "Событие",
        NodeType.PERSON: "Человек",
        NodeType.OPEN_LOOP: "Незакрытое",
        NodeType.EMOTIONAL_NOTE: "Чувство",
        NodeType.HYPOTHESIS: "Гипотеза",
    },
    "uk": {
        NodeType.FACT: "Факт",
        NodeType.EVENT: "Подія",
        NodeType.PERSON: "Людина",
        NodeType.OPEN_LOOP: "Незавершене",
        NodeType.EMOTIONAL_NOTE: "Почуття",
        NodeType.HYPOTHESIS: "Гіпотеза",
    },
}
_TENSIONS_HEADINGS = {"en": TENSIONS_HEADING, "ru": "## Противоречия", "uk": "## Суперечності"}
PORTRAIT_FALLBACK_LANGUAGE = "en"
TITLE_CONTENT_CHARS = 60
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
    return f"{HEADING}{entry.title}\n{meta}\n\n{_escape(entry.text)}"


# A text line that would read as the tensions log's heading ("# ...", which ends the blocks) is
# written after a backslash, and so is one that starts with a backslash already: every text
# reads back as written ("## " lines are refused: `_block_text`).
_ESCAPE = "\\"


def _escape(text: str) -> str:
    return "\n".join(
        _ESCAPE + line if line.startswith(("#", _ESCAPE)) else line for line in text.split("\n")
    )


def _unescape(lines: list[str]) -> str:
    return "\n".join(line.removeprefix(_ESCAPE) for line in lines)


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
            text=_unescape(text),
            until=_parse_date(match["until"], "until") if match["until"] else None,
        )
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        raise PortraitFormatError(str(error)) from error


def portrait_language(contents: Iterable[str], preferred: str | None = None) -> str:
    """The language of the portrait's own words: the user's preferred one when the portrait
    speaks it, else the one most of the memories are written in (ties: the first met), else
    English."""
    if preferred in _TYPE_LABELS:
        return preferred
    counts: dict[str, int] = {}
    for content in contents:
        language = detect_language(content)
        if language in _TYPE_LABELS:
            counts[language] = counts.get(language, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else PORTRAIT_FALLBACK_LANGUAGE


def entry_title(node_type: NodeType, content: str, language: str) -> str:
    """A block's heading: the memory's type in the portrait's language, then its first words."""
    labels = _TYPE_LABELS.get(language, _TYPE_LABELS[PORTRAIT_FALLBACK_LANGUAGE])
    words = " ".join(content.split())
    if len(words) > TITLE_CONTENT_CHARS:
        words = words[: TITLE_CONTENT_CHARS - 3].rsplit(" ", 1)[0] + "…"
    return f"{labels[node_type]}: {words}"


def tensions_heading(language: str) -> str:
    return _TENSIONS_HEADINGS.get(language, TENSIONS_HEADING)


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
        if line.startswith("# ") or line in _TENSIONS_HEADINGS.values():
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
    language: str = PORTRAIT_FALLBACK_LANGUAGE,
) -> str:
    """The tensions log, oldest first; each side shown by its content (or id if unknown), under
    its heading in `language` (`portrait_language`).

    Both sides are shown as recorded, with their status and no resolution: the article removed
    "likely resolution" because it pushed the system to smooth contradictions over.
    """
    lines = [tensions_heading(language)]
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
