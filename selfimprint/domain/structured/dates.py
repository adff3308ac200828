"""The days a message refers to, resolved against when it was sent (spec §3.2 events, §3.8
scheduled triggers).

dateparser finds and resolves the expressions ("tomorrow", "next Tuesday", "18 марта", "два дня
назад"); this module decides which of its finds name one day. Vague times ("last month", "next
week") and bare times of day are not dates of an event. A bare weekday is the next one in a
sentence about the future and the last one in a sentence about the past.
"""

from __future__ import annotations

import re
import warnings
from datetime import date, datetime
from functools import cache
from typing import Any

from selfimprint.domain.structured.cues import LanguageCues, normalise

# A find names one day only if it holds a digit, a weekday, a word of a day relative to today
# ("tomorrow", "послезавтра") or a count of days ("three days ago", "через три дня"); a month
# alone ("in January", "на апрель") or a time of day is no date of an event.
_DAY_WORDS = re.compile(
    r"\d|\b(?:today|tonight|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|сегодня|завтра|вчера|послезавтра|позавчера|понедельник\w*|"
    r"вторник\w*|сред[аыу]|четверг\w*|пятниц\w*|суббот\w*|воскресень\w*)\b"
    r"|\b(?!a\b|per\b|every\b|each\b|в\b|за\b|каждый\b)\w+\s+(?:days?|дн[яей]|день)\b",
    re.IGNORECASE,
)
_VAGUE = re.compile(
    r"\b(?:week|weeks|weekend|month|months|year|years|hour|hours|minute|minutes|"
    r"недел\w*|месяц\w*|год\w*|лет|час\w*|минут\w*|выходн\w*)\b",
    re.IGNORECASE,
)
_YEAR_ONLY = re.compile(r"^\W*\d{4}\W*$")
_DIGITS_ONLY = re.compile(r"^\W*\d{1,2}(?::\d{2})?\W*$")
_LEADING = re.compile(r"^(?:(?:on|at|in|this|the|by|a|an|в|во|на|к|до)\s+)+", re.IGNORECASE)
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|сегодня|завтра|вчера|послезавтра|позавчера)\b", re.I
)
# Phrasings dateparser misreads, rewritten before it reads them; times of day are dropped (a
# "March 18 at 9" otherwise hides the date).
_REWRITES = (
    (re.compile(r"\bthe day after tomorrow\b", re.I), "in 2 days"),
    (re.compile(r"\b(?:the )?day before yesterday\b", re.I), "2 days ago"),
    (re.compile(r"\btomorrow's\b", re.I), "tomorrow"),
    (re.compile(r"\byesterday's\b", re.I), "yesterday"),
    (re.compile(r"\bзавтрашн\w+", re.I), "завтра"),
    (re.compile(r"\bвчерашн\w+", re.I), "вчера"),
    (re.compile(r"\bсегодняшн\w+", re.I), "сегодня"),
    (
        re.compile(
            r"\b(?:at|в|к)\s+\d{1,2}(?:[:.]\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.|утра|вечера|дня))?"
            r"(?!\s*(?:[./]\d|\w*\s*(?:янв|фев|мар|апр|ма[яй]|июн|июл|авг|сен|окт|ноя|дек|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))",
            re.I,
        ),
        "",
    ),
    (re.compile(r"\bдо (понедельник|вторник|четверг)а\b", re.I), r"в \1"),
    (re.compile(r"\bдо сред[ыу]\b", re.I), "в среду"),
    (re.compile(r"\bдо пятницы\b", re.I), "в пятницу"),
    (re.compile(r"\bдо субботы\b", re.I), "в субботу"),
    (re.compile(r"\bдо воскресенья\b", re.I), "в воскресенье"),
)
# "22.07" / "22.07.2026": day first, as in both languages' chat.
_DAY_MONTH = re.compile(r"\b(\d{1,2})\.(\d{1,2})(?:\.(\d{4}|\d{2}))?\b")
_CLAUSE_END = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)\.|[,;!?]|\s(?:and|but|while|а|но|и)\s",
    re.IGNORECASE,
)
_LANGUAGES = {"en": "en", "ru": "ru"}


@cache
def _search() -> Any:
    # Imported lazily: dateparser loads its language data on first use (~0.1 s).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from dateparser.search import search_dates

    return search_dates


def _names_a_day(found: str) -> bool:
    text = _LEADING.sub("", found.strip().casefold()).strip(" ,.;!?")
    if not text or _DIGITS_ONLY.match(text) or _YEAR_ONLY.match(text):
        return False
    return bool(_DAY_WORDS.search(text)) and not _VAGUE.search(text)


def _clause(text: str, phrase: str) -> str:
    """The clause of `text` that holds `phrase` (its tense decides a bare weekday)."""
    at = text.find(phrase)
    if at < 0:
        return text
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, at)]
    end = _CLAUSE_END.search(text, at + len(phrase))
    return text[starts[-1] if starts else 0 : end.start() if end else len(text)]


def _day_month(text: str, sent: date) -> list[date]:
    days = []
    for match in _DAY_MONTH.finditer(text):
        day, month, year = match.groups()
        full_year = sent.year if year is None else int(year) + (2000 if len(year) == 2 else 0)
        try:
            days.append(date(full_year, int(month), int(day)))
        except ValueError:
            continue
    return days


def _relative_day(word: str, base: datetime, language: str) -> date | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = _search()(word, languages=[language], settings={"RELATIVE_BASE": base}) or []
    return found[0][1].date() if found else None


def resolve_dates(text: str, sent_at: datetime, cues: LanguageCues) -> tuple[date, ...]:
    """The days `text` names, in order of mention, without repeats."""
    language = _LANGUAGES.get(cues.language, "en")
    clean = normalise(text)
    for pattern, replacement in _REWRITES:
        clean = pattern.sub(replacement, clean)
    base = sent_at.replace(tzinfo=None)  # the sender's wall clock: "tomorrow" is theirs
    numeric = _day_month(clean, base.date())
    clean = _DAY_MONTH.sub(" ", clean)
    found: dict[str, list[tuple[str, datetime]]] = {}
    for prefer in ("future", "past"):
        settings = {
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": prefer,
            "RETURN_AS_TIMEZONE_AWARE": False,
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found[prefer] = _search()(clean, languages=[language], settings=settings) or []
    days = list(numeric)
    past_of = dict(found["past"])
    for phrase, future in found["future"]:
        if not _names_a_day(phrase):
            relative = _RELATIVE_DAY.search(phrase)
            if relative is None:
                continue
            # "yesterday after three months": the day word alone is the date.
            day = _relative_day(relative.group(0), base, language)
            if day is not None:
                days.append(day)
            continue
        past = past_of.get(phrase, future)
        if any(c.isdigit() for c in phrase):
            # An absolute date without a year: the occurrence nearest to when it was said.
            nearest = min((future, past), key=lambda d: abs((d - base).total_seconds()))
            days.append(nearest.date())
            continue
        clause = _clause(clean, phrase)
        in_past = bool(cues.past.search(clause))
        days.append((past if in_past else future).date())
    return tuple(dict.fromkeys(days))
