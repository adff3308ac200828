"""Vocabulary of the inference policy (spec §4.1, §4.2): the categories, and per language the terms
that find them, read once at import from package data (`data/inference_lexicon/<language>.toml`).
A file with a table that is no category, a missing category, or an empty, upper-case, duplicated
or malformed term stops the import with the file and the term named: no category goes unguarded.

Term notation, kept small so the lists stay readable by a reviewer who does not write regexes:

* ``*`` at any place stands for "any word characters" (``\\w*``), so ``депресс*`` covers every
  case and gender of the stem (депрессия, депрессией, депрессивный ...).
* a space matches any run of spaces or hyphens (``left wing`` also finds ``left-wing``).
* anything else is a Python regular expression fragment; every term is anchored at word edges.
  Because ``*`` and the space are taken, a fragment spells an optional space ``\\s?`` and a
  repetition ``{0,}``.
* terms are matched against casefolded, NFKC-normalised text with ё folded to е, so terms are
  written in lower case and either ё or е may be used.

``exceptions`` are phrases in which a match does not count for that category ("crime novels",
"office politics", "болеет за «Спартак»"). Keep them narrow: for never-infer categories a false
positive is cheap and a miss is not (spec §4.1). The data files say why stems end where they do.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from importlib import resources
from typing import Final, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Language(StrEnum):
    """Languages with a lexicon: one data file each."""

    EN = "en"
    RU = "ru"


class Category(StrEnum):
    # Never inferred (spec §4.1).
    MEDICAL_DIAGNOSIS = "medical_diagnosis"
    SEXUAL_ORIENTATION_GENDER_IDENTITY = "sexual_orientation_gender_identity"
    POLITICAL_VIEWS = "political_views"
    RELIGIOUS_BELIEFS = "religious_beliefs"
    FINANCIAL_POSITION = "financial_position"
    HEALTH_STATUS = "health_status"
    IMMIGRATION_STATUS = "immigration_status"
    CRIMINAL_HISTORY = "criminal_history"
    # Not in the §4.1 list; added because racial or ethnic origin is a GDPR Art. 9 special
    # category, the same legal ground §4.1 gives for its exclusions.
    ETHNIC_ORIGIN = "ethnic_origin"
    # Allowed with a high bar (spec §4.2).
    EMOTIONAL_STATE = "emotional_state"
    RELATIONSHIP = "relationship"
    LONG_TERM_GOAL = "long_term_goal"


class CategoryTerms(NamedTuple):
    terms: tuple[str, ...]
    exceptions: tuple[str, ...] = ()


Lexicon = Mapping[Language, Mapping[Category, CategoryTerms]]


class LexiconError(ValueError):
    """A lexicon file that would leave the policy guessing; raised at import."""


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    terms: list[str]
    exceptions: list[str] = Field(default_factory=list)


_ESCAPE = re.compile(r"\\.")


def term_regex(term: str) -> str:
    """The regular expression a term stands for, without its word-edge anchors."""
    return _fold(term).replace("*", r"\w*").replace(" ", r"[\s\-]+")


def _fold(term: str) -> str:
    return term.replace("ё", "е")


def _problem(term: str) -> str | None:
    """What is wrong with one term or exception, or None."""
    if not term.strip():
        return "is empty"
    if term != term.strip():
        # At the edge, a space would demand one more space or hyphen next to the word.
        return "starts or ends with whitespace"
    if any(ch.isupper() for ch in _ESCAPE.sub("", term)):
        # Text is casefolded before matching: an upper-case letter would never match.
        return "has upper-case letters"
    try:
        re.compile(term_regex(term))
    except re.error as error:
        return f"is not a valid pattern ({error})"
    return None


def _entry(raw: object, where: str) -> CategoryTerms:
    try:
        table = _Table.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'table'}: {e['msg']}" for e in error.errors()
        )
        raise LexiconError(f"{where}: {problems}") from error
    if not table.terms:
        raise LexiconError(f"{where}: no terms")
    for kind, words in (("term", table.terms), ("exception", table.exceptions)):
        for word in words:
            if problem := _problem(word):
                raise LexiconError(f"{where}: {kind} {word!r} {problem}")
        folded = [_fold(word) for word in words]
        if twice := sorted({word for word in folded if folded.count(word) > 1}):
            raise LexiconError(f"{where}: {kind}s listed twice: {twice}")
    return CategoryTerms(tuple(table.terms), tuple(table.exceptions))


def parse_lexicon(text: str, source: str) -> dict[Category, CategoryTerms]:
    """One language's terms from the TOML text of its file; `source` names it in errors."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise LexiconError(f"{source}: not valid TOML: {error}") from error
    known = [c.value for c in Category]
    if unknown := sorted(set(raw) - set(known)):
        raise LexiconError(f"{source}: unknown categories {unknown}; known are {known}")
    if missing := [name for name in known if name not in raw]:
        raise LexiconError(f"{source}: no table for categories {missing}")
    lexicon: dict[Category, CategoryTerms] = {}
    owner: dict[str, Category] = {}  # folded term -> its category, to find one in two tables
    for category in Category:  # enum order, whatever the order in the file
        entry = _entry(raw[category.value], f"{source} [{category.value}]")
        for term in entry.terms:
            if (other := owner.setdefault(_fold(term), category)) is not category:
                raise LexiconError(
                    f"{source}: term {term!r} is in both [{other.value}] and [{category.value}]"
                )
        lexicon[category] = entry
    return lexicon


def load_lexicon() -> dict[Language, dict[Category, CategoryTerms]]:
    """Every language's file, found through the installed package (works from a wheel)."""
    folder = resources.files("selfimprint.domain") / "data" / "inference_lexicon"
    return {
        language: parse_lexicon(
            (folder / f"{language.value}.toml").read_text(encoding="utf-8"),
            f"inference lexicon {language.value}.toml",
        )
        for language in Language
    }


DEFAULT_LEXICON: Final[Lexicon] = load_lexicon()
