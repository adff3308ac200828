"""The days a message refers to, resolved against when it was sent (spec §3.2 events, §3.8
scheduled triggers).

Days relative to today ("tomorrow", "last night", "in 3 days", "два дня назад", "in two weeks",
"неделю назад"), weekdays ("next Tuesday", "в прошлую среду", a bare "on Friday") and days of the
month without one ("on the 3rd", "18-го") are read by the small grammar of this module; written
dates with a month ("March 18", "the 5th of June", "пятого июня") by dateparser, which runs only
when the text names a month (or writes a date with a slash or dashes): most messages name none,
and it costs milliseconds.

What is no date of an event: vague times ("next week", "last weekend", "in January"), repeating
ones ("every Tuesday", "по пятницам", "the Tuesday yoga class"), ranges ("Monday to Friday") and
times of day. A bare weekday is the first such day after the sent date in a sentence about the
future and the last one before it in a sentence about the past; a day of the month likewise. A
weekday or day after "by", "until", "for", "to", "до", "к" is a target, in the future whatever the
tense ("moved the dentist to Friday").
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

from selfimprint.domain.structured.cues import LanguageCues, normalise
from selfimprint.domain.structured.morphology import is_dative_noun, verb_tense
from selfimprint.domain.terms import stem

_I = re.IGNORECASE


def _words(table: dict[str, int]) -> str:
    return "|".join(sorted(map(re.escape, table), key=len, reverse=True))


_EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
}  # fmt: skip
_RU_NUMBERS = {
    "один": 1, "одни": 1, "два": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7,
    "восемь": 8, "девять": 9, "десять": 10,
}  # fmt: skip
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
# Russian ordinals by stem, in any case ending ("пятого", "пятое", "третьего", "третье").
_RU_ORDINAL_STEMS = {
    "перв": 1, "втор": 2, "трет": 3, "четверт": 4, "пят": 5, "шест": 6, "седьм": 7, "восьм": 8,
    "девят": 9, "десят": 10, "одиннадцат": 11, "двенадцат": 12, "тринадцат": 13,
    "четырнадцат": 14, "пятнадцат": 15, "шестнадцат": 16, "семнадцат": 17, "восемнадцат": 18,
    "девятнадцат": 19, "двадцат": 20, "тридцат": 30,
}  # fmt: skip

_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
    r"|(?:январ|феврал|март|апрел|ма[йяю]|июн|июл|август|сентябр|октябр|ноябр|декабр)\w*"
)
_MONTH_WORD = re.compile(rf"\b(?:{_MONTH})\b", _I)
# When dateparser runs at all: a month named, or a date written with slashes or dashes.
_WRITTEN = re.compile(rf"\b(?:{_MONTH})\b|\b\d{{1,4}}[/-]\d{{1,2}}(?:[/-]\d{{2,4}})?\b", _I)

_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_RU = ("понедельник", "вторник", "сред", "четверг", "пятниц", "суббот", "воскресень")
_WEEKDAY = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|понедельник[ауе]?|вторник[ауе]?|сред[аыуе]|четверг[ауе]?|пятниц[аыуе]|суббот[аыуе]"
    r"|воскресень[еяю]"
)

# Typed shorthand and misspellings, read as the word they stand for; the times of a day name it.
_REWRITES = (
    (
        r"\b(?:tmrw|tmrow|tmr|tmw|2moro|2morrow|tomoz|tomorow|tommorow|tommorrow|tomorro)\b",
        "tomorrow",
    ),
    (r"\bthe (?:morra|morrow)\b", "tomorrow"),  # Scots and Irish: "the morra"
    (r"\b(?:yday|yesterdy|yesturday|yestarday)\b", "yesterday"),
    (r"\b(?:tonite|2nite|2night)\b", "tonight"),
    (r"\b(?:2day|tday)\b", "today"),
    (r"\b(?:седня|сегодн)\b", "сегодня"),
    (r"\bthis arvo\b", "this afternoon"),  # Australian
    # "сегодня среда": the weekday is today's, not the next one.
    (r"\bсегодня\s+(?:понедельник|вторник|среда|четверг|пятница|суббота|воскресенье)\b", "сегодня"),
    (r"\b(сегодня|завтра|вчера)шн\w+", r"\1"),
    (r"\b(on|next|last|this|by|until|till|before|from|coming|past)\s+mon\b\.?", r"\1 monday"),
    (
        r"\b(on|next|last|this|by|until|till|before|from|coming|past|for)\s+sat\b(?!\s*nav)\.?",
        r"\1 saturday",
    ),
    (r"\b(on|next|last|this|by|until|till|before|from|coming|past)\s+sun\b\.?", r"\1 sunday"),
    # ... and in a range ("Mon-Fri", "Sat to Sun"), which _NOT_A_DAY then drops.
    (r"\bmon(?=\s*(?:-|–|(?:to|till|until|through|thru)\b)\s*[a-z])", "monday"),
    (r"\bwed(?=\s*(?:-|–|(?:to|till|until|through|thru)\b)\s*[a-z])", "wednesday"),
    (r"\bsat(?=\s*(?:-|–|(?:to|till|until|through|thru)\b)\s*[a-z])", "saturday"),
    (r"(\b(?:mon|tue|wed|thu|fri)\w*\s*(?:-|–|to|till|until|through|thru)\s*)sat\b", r"\1saturday"),
    (
        r"(\b(?:mon|tue|wed|thu|fri|sat)\w*\s*(?:-|–|to|till|until|through|thru)\s*)sun\b",
        r"\1sunday",
    ),
    (r"\btues?\b\.?", "tuesday"),
    (r"\bweds?\b\.?(?=\s*(?:$|[,.!?]|\d|morning|afternoon|evening|night|at\b))", "wednesday"),
    (
        r"\b(on|next|last|this|by|until|till|before|from|coming|past)\s+weds?\b\.?",
        r"\1 wednesday",
    ),
    (r"\bto\s+weds\b\.?", "to wednesday"),  # "moved to weds"; "plan to wed" is no day
    (r"\bthu(?:rs?)?\b\.?", "thursday"),
    (r"\bfri\b\.?", "friday"),
    (r"\b(в|во|до|к|на|с|со)\s+пн\b\.?", r"\1 понедельник"),
    (r"\b(в|во|до|к|на|с|со)\s+вт\b\.?", r"\1 вторник"),
    (r"\b(в|во|до|к|на|с|со)\s+ср\b\.?", r"\1 среду"),
    (r"\b(в|во|до|к|на|с|со)\s+чт\b\.?", r"\1 четверг"),
    (r"\b(в|во|до|к|на|с|со)\s+пт\b\.?", r"\1 пятницу"),
    (r"\b(в|во|до|к|на|с|со)\s+сб\b\.?", r"\1 субботу"),
    (r"\b(в|во|до|к|на|с|со)\s+вс\b\.?", r"\1 воскресенье"),
    # "March 18 at 9" would otherwise hide the date from dateparser.
    (
        r"\b(?:at|в|к)\s+\d{1,2}(?!\d)(?:[:.]\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.|утра|вечера|дня))?"
        # ... not a day of the month: "к 20-му", "к 25-го", "в 18-е" name a day.
        rf"(?!\s*(?:[./]\d|\w*\s*(?:{_MONTH}))|-?(?:го|е|ое|ого|му|ому)\b)",
        "",
    ),
    # "24/7" is all the time, and a number with one decimal ("A1c 6.4") is a measure: neither
    # names a day (a day-first date writes its month in two digits, "22.07").
    (r"\b24\s*/\s*7\b", " "),
    (r"(?<![\d./])\d{1,3}\.\d(?!\d|[./]\d)", " "),
)
_REWRITE_PATTERNS = tuple((re.compile(p, _I), r) for p, r in _REWRITES)
# Words after a weekday that make no noun of what follows ("friday the kids", "sunday with").
_NOT_NOUNS = (
    r"(?:the|my|our|his|her|their|your|a|an|with|and|or|at|for|to|we|i|you|they|he|she|it"
    r"|is|was|this|that|its|as|plus|yes|us|thanks|pls|please|lets|let's|in|on|from|by|off)"
)
_MONTH_NAMES = (
    r"January|February|March|April|May|June|July|August|September|October|November|December"
)
# Not one day: a repeated weekday, one used as a name ("the Tuesday yoga class"), a range.
_NOT_A_DAY = re.compile(
    # "every tuesday thursday and saturday", "in LoDo tues wed thurs": three weekdays in a row
    # are a schedule (first, as the next two alternatives would take one or two only).
    rf"\b(?:every\s+)?(?:{_WEEKDAY})(?:\s*,?\s*(?:and\s+|&\s+)?(?:{_WEEKDAY})){{2,}}\b|"
    # "earlies mon wed fri, lates tue thu": three weekdays listed, shortened ones among them, or
    # two after a word of shifts, are a rota (the shortened ones rewritten in part by now: "tue"
    # is "tuesday", "mon" is not).
    rf"\b(?:{_WEEKDAY}|mon|wed|weds|sat|sun)(?:\s*,?\s+(?:{_WEEKDAY}|mon|wed|weds|sat|sun)\b){{2,}}|"
    rf"\b(?:earlies|lates|nights|shifts|rota|rotas)\s+(?:{_WEEKDAY}|mon|wed|weds|sat|sun)"
    rf"(?:\s*,?\s+(?:{_WEEKDAY}|mon|wed|weds|sat|sun)\b)+|"
    # "every Tuesday and Thursday": both repeat (first: the next alternative takes one only).
    rf"\b(?:every|each)\s+(?:{_WEEKDAY})\s+(?:and|&|or)\s+(?:{_WEEKDAY})\b|"
    rf"\b(?:every|each|most|all|some)\s+(?:other\s+|second\s+|2nd\s+|third\s+|3rd\s+|alternate\s+|single\s+)?"
    rf"(?:{_WEEKDAY})\b"
    # "the first Saturday of the month": a repeating day.
    rf"|\b(?:first|second|third|fourth|last)\s+(?:{_WEEKDAY})\s+of\s+(?:the|every|each)\s+month\b"
    rf"|\b(?:{_WEEKDAY})s\b"
    rf"|\b(?:the|my|our|your|his|her|their|a|an)\s+(?:{_WEEKDAY})\s+"
    r"(?!(?:morning|afternoon|evening|night|after|before|at|and|or|is|was|will)\b)(?=[a-z])"
    rf"|(?P<range>\b(?:from\s+)?(?:{_WEEKDAY})\s*(?:-|–|to|till|until|through|thru)\s*(?:{_WEEKDAY})\b)"
    rf"|\bкажд\w+\s+(?:втор\w+\s+|треть\w+\s+)?(?:{_WEEKDAY})\b"
    rf"|\b(?:с|со)\s+(?:{_WEEKDAY})\s+(?:по|до)\s+(?:{_WEEKDAY})\b"
    # "on a sunday morning": any Sunday.
    rf"|\b(?:a|an)\s+(?:{_WEEKDAY})\b"
    # "office tues + thurs", "mon/wed": a schedule.
    rf"|\b(?:{_WEEKDAY})\s*[+/]\s*(?:{_WEEKDAY})\b"
    # "sunday brunch shifts", "saturday girls": a weekday before a plural noun is a habit.
    # ("Monday in Leeds" is a place after the day: "in" is no noun).
    rf"|\b(?:{_WEEKDAY})\s+(?:(?!{_NOT_NOUNS}\b)[a-z]+\s+)?(?!{_NOT_NOUNS}\b)"
    r"[a-z]{2,}(?<![aeiousy])s\b"
    # "the Fremont Sunday Market": a weekday inside a name.
    rf"|(?-i:\b[A-Z][a-z]+\s+)(?:{_WEEKDAY})(?-i:\s+(?!(?:{_MONTH_NAMES})\b)[A-Z][a-z]+)\b"
    # "график 5/2", "a 4/3 rota": days on and off, not a date.
    r"|\b(?:график\w*|schedule|rota|shifts?|pattern)\s+(?:\w+\s+)?\d\s*/\s*\d\b(?!\s*/)"
    # "monday nights", "fri and sat nights": a habit ("sat" is left unread as a verb).
    rf"|\b(?:{_WEEKDAY})(?:\s+(?:and|&)\s+(?:{_WEEKDAY}|sat))?"
    r"\s+(?:nights|mornings|evenings|afternoons)\b"
    # "каждое 25е число", "every 25th", "each month on the 3rd": a day that comes monthly.
    r"|\bкажд\w+\s+\d{1,2}-?(?:е|ое|го|ого)?(?:\s+числ\w*)?"
    r"|\b(?:every|each)\s+(?:month\s+on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b"
    # "the 2nd tuesday of every month": a repeating day.
    rf"|\b(?:the\s+)?\d(?:st|nd|rd|th)\s+(?:{_WEEKDAY})\s+of\s+(?:every|each)\s+month\b"
    # A rating ("10/10", "8/10 would recommend") and a score ("we draw 3-3", "won 2-1").
    r"|\b10\s*/\s*10\b|\b\d\s*/\s*10\b(?=\s*(?:would|recommend|no regrets|stars?|lol|haha"
    r"|on\s+(?:a|an|the|my|his|her|their)\s+(?:\w+\s+)?(?:test|quiz|exam|essay|paper)s?\b))"
    # "got 9/10 on a spelling test", "scored 17/20": a mark.
    r"|\b(?:got|get|gets|getting|scored?|scoring)\s+(?:a\s+)?\d{1,2}\s*/\s*(?:10|20|50|100)\b"
    # "Нива 12го года": a year, not a day; "три четверга пропустил": a count of them.
    r"|\b\d{1,2}-?(?:го|ого)?\s+года\b"
    rf"|\b(?:два|две|три|четыре|пять|\d)\s+(?:{_WEEKDAY}|четверга|вторника|понедельника"
    r"|воскресенья)\b"
    r"|\b(?:draw|drew|drawn|won|lost|beat|beaten|score|scored|finished|ended|ничья|выиграли"
    r"|проиграли|счёт|счет)\s+\d{1,2}\s*[-:]\s*\d{1,2}\b"
    r"|\b(\d{1,2})\s*-\s*\1\b(?!\s*-)"
    # An age and the month it comes ("Zosia who is 11 in june", "she turns 7 in May", "he'll be
    # 5 in March"): a birthday month, no day; blanked whole, so no age before it reads as one.
    rf"|\b(?:turns?|turning|(?:who|she|he|they)\s*(?:is|'s|’s)|(?:will|'ll|’ll)\s+be)\s+\d{{1,2}}"
    rf"\s+in\s+(?:{_MONTH_NAMES})\b",
    _I,
)

_RELATIVE = {
    "the day after tomorrow": 2, "day after tomorrow": 2, "the day before yesterday": -2,
    "day before yesterday": -2, "last night": -1, "this morning": 0, "this afternoon": 0,
    "this evening": 0, "tonight": 0, "today": 0, "tomorrow": 1, "yesterday": -1,
    "прошлой ночью": -1, "этим утром": 0, "послезавтра": 2, "позавчера": -2, "сегодня": 0,
    "завтра": 1, "вчера": -1,
}  # fmt: skip
_RELATIVE_DAY = re.compile(rf"\b(?:{_words(_RELATIVE)})\b", _I)
_EN_COUNT = rf"\d{{1,2}}|{_words(_EN_NUMBERS)}"
_RU_COUNT = rf"\d{{1,2}}|{_words(_RU_NUMBERS)}"
_COUNTED = re.compile(
    rf"\bin\s+(?P<ahead>{_EN_COUNT})\s+days?\b(?!\s+ago\b)"
    rf"|\b(?P<ahead_from>{_EN_COUNT})\s+days?\s+from\s+(?:now|today)\b"
    rf"|\b(?P<ago>{_EN_COUNT})\s+days?\s+ago\b"
    rf"|\bчерез\s+(?P<ru_ahead>{_RU_COUNT})\s+(?:дн(?:я|ей)|день|суток)\b"
    rf"|\b(?P<ru_ago>{_RU_COUNT})\s+(?:дн(?:я|ей)|день|суток)\s+назад\b",
    _I,
)
# Week offsets are single days (tests/data/extraction/README.md, rule 1): "in a week" +7, "two
# weeks ago" -14, "через две недели" +14, "неделю назад" -7. "next week" stays vague.
_RU_WEEKS = r"\d{1,2}|одну|две|два|три|четыре|пять|шесть"
_WEEKS_AHEAD = re.compile(
    rf"\bin\s+(?P<en>an?|{_EN_COUNT})\s+weeks?\b(?!\s+ago\b)"
    # "a week from now"; not "3x a week from now on" (how often, from now on).
    rf"|(?<!\d\s)(?<!\dx\s)(?<!times\s)(?<!per\s)\b(?P<en_from>an?|{_EN_COUNT})\s+weeks?\s+from\s+"
    r"(?:now|today)\b(?!\s+on\b)"
    rf"|\bin\s+a\s+(?P<fortnight>fortnight)\b"
    rf"|\bчерез\s+(?:(?P<ru>{_RU_WEEKS})\s+)?недел(?:ю|и|ь)\b",
    _I,
)
_WEEKS_AGO = re.compile(
    rf"\b(?P<en>an?|{_EN_COUNT})\s+weeks?\s+ago\b"
    rf"|\ba\s+(?P<fortnight_ago>fortnight)\s+ago\b"
    rf"|\b(?:(?P<ru>{_RU_WEEKS})\s+)?недел(?:ю|и|ь)\s+назад\b",
    _I,
)
_RU_WEEK_NUMBERS = {"одну": 1, "две": 2, "два": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6}
_WEEKDAY_PHRASE = re.compile(
    r"\b(?:(?P<mod>this\s+past|this\s+coming|next|last|this|coming|past"
    r"|следующ\w*|ближайш\w*|прошл\w*|эт(?:у|от|о))\s+)?"
    rf"(?P<day>{_WEEKDAY})\b",
    _I,
)
_AFTER_MODIFIER = re.compile(r"^(?:this coming|next|this|coming|следующ|ближайш|эт)", _I)
# "on the 3rd", "by the 20th", "18-го", "на 18-е", "5 числа": a day of the month left unnamed.
_DAY_OF_MONTH = re.compile(
    r"\bthe\s+(?:whole\s+|entire\s+)?(?P<en>\d{1,2})(?:st|nd|rd|th)\b"
    # "к 25-му", "к 20му": by the day, its dative.
    r"|\b(?P<ru>\d{1,2})(?:-?(?:го|е|ое|ого|му|ому)\b|(?=\s+числа\b))",
    _I,
)
# Words an ordinal counts when it is not a day: "the 3rd floor", "my 2nd try", "18-е место".
_ORDINAL_NOUNS = frozenset(
    "floor floors place time times row grade year years century anniversary birthday edition "
    "round attempt try day days week weeks month months lap seat generation season episode "
    "chapter book level stage percentile inning hole gear tier wedding date person one kid "
    "child baby grandchild game match class lesson session shift week's day's gen "
    "место места месте этаж этаже этажа класс класса классе раз раза день дня неделя недели "
    "год года году попытка попытки урок урока занятие занятия серия серии сезон сезона".split()
)
# "22.07" / "22.07.2026": day first, as in both languages' chat.
_DAY_MONTH = re.compile(r"\b(\d{1,2})\.(\d{1,2})(?:\.(\d{4}|\d{2}))?\b")
_TARGET_BEFORE = re.compile(
    # "due date aug 14", "due on the 3rd": what is due is ahead.
    r"\b(?:by|until|till|for|to|before|due\s+date(?:\s+is)?|(?:is|'s|’s|are|am)\s+due(?:\s+on)?"
    r"|до|к|ко|на)\s+(?:the\s+)?$",
    _I,
)
_CLAUSE_END = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)\.(?!\d)|[,;!?]|\s(?:and|but|while|а|но|и)\s"
    # A subordinate clause has its own tense: "asked if id fancy a drink on friday", "found a
    # place that can do the 19th", "so monday im back at my desk".
    r"|\s(?:because|cos|cuz|so|if)\s|\sthat\s(?=(?:can|could|will|would|i|we|he|she|they)\b)"
    # ... and so has a Russian one: "написала артуру что в субботу не могу".
    r"|\s(?:что|если|чтобы)\s",
    _I,
)
_YEAR = re.compile(r"\b\d{4}\b")
_LANGUAGES = {"en": "en", "ru": "ru"}


@cache
def _search() -> Any:
    # Imported lazily: dateparser loads its language data on first use (~0.1 s).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from dateparser.search import search_dates

    return search_dates


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    day: date


def _count(raw: str) -> int:
    word = raw.casefold()
    return int(word) if word.isdigit() else _EN_NUMBERS.get(word) or _RU_NUMBERS[word]


def _weeks(match: re.Match[str]) -> int:
    """The number of weeks a week offset counts ("a week", "через неделю": one)."""
    raw = next((g for g in match.groups() if g), None)
    if raw is None or raw.casefold() in ("a", "an"):
        return 1
    if raw.casefold() == "fortnight":
        return 2
    return _RU_WEEK_NUMBERS.get(raw.casefold()) or _count(raw)


# Two days before one month ("с 14 на 21 марта", "на 12-е и 14-е декабря"): the first is the
# month's too, when it comes first in it ("с 6 по 8 марта" is a stay that ends on the 8th).
_SHARED_MONTH = re.compile(
    r"\b(\d{1,2})(-?(?:го|е|ое))?(\s+(?:и|или|на)\s+)"
    r"(\d{1,2}(?:-?(?:го|е|ое))?\s+((?:январ|феврал|март|апрел|ма[йяю]|июн|июл|август"
    r"|сентябр|октябр|ноябр|декабр)\w*))",
    _I,
)


def _rewrite(text: str) -> str:
    clean = normalise(text)
    for pattern, replacement in _REWRITE_PATTERNS:
        clean = pattern.sub(replacement, clean)
    return _SHARED_MONTH.sub(_share_month, _ordinal_words(clean))


def _share_month(match: re.Match[str]) -> str:
    first, joiner, second = match.group(1), match.group(3), match.group(4)
    if int(first) >= int(re.match(r"\d+", second).group(0)):  # type: ignore[union-attr]
        return match.group(0)  # "с 26-го на 4 октября": the 26th is September's
    if joiner.strip() == "на" and not re.search(r"\bс\s+$", match.string[: match.start()]):
        return match.group(0)  # "билеты на 2 на 12 июня": a count, moved from nothing
    return f"{first}{match.group(2) or ''} {match.group(5)}{joiner}{second}"


def _ordinal_value(phrase: str, ordinals: dict[str, int]) -> int:
    """ "twenty-first" -> 21, "двадцать пят" -> 25 (the Russian stem, its ending cut)."""
    words = re.split(r"[-\s]+", phrase.casefold())
    tens = {"twenty": 20, "thirty": 30, "двадцать": 20, "тридцать": 30}
    return sum(tens.get(w, 0) for w in words[:-1]) + ordinals[words[-1]]


_EN_ORDINAL = rf"(?:(?:twenty|thirty)[-\s])?(?:{_words(_EN_ORDINALS)})"
# "the fifth of June", "June fifth", "on the third." -> digits, so one reader reads them all.
_EN_ORDINAL_DAY = re.compile(
    rf"(?P<lead>\bthe\s+)(?P<ord>{_EN_ORDINAL})(?=\s+of\s+(?:{_MONTH})\b)"
    rf"|(?P<lead2>\b(?:{_MONTH})\s+(?:the\s+)?)(?P<ord2>{_EN_ORDINAL})\b"
    rf"|(?P<lead3>\b(?:on|by|until|till|before|from|since)\s+the\s+)(?P<ord3>{_EN_ORDINAL})"
    r"(?=\s*(?:$|[,.!?;]))",
    _I,
)
# "пятого июня", "двадцать первого числа" -> "5 июня", "21-го числа".
_RU_ORDINAL_DAY = re.compile(
    rf"\b(?P<ord>(?:(?:двадцать|тридцать)\s+)?(?:{_words(_RU_ORDINAL_STEMS)}))"
    rf"(?:ого|ое|ье|ьего|ому|ьему|ом|ьем)(?:(?P<tail>\s+(?:числа\b|(?:{_MONTH})))"
    # ... and the first of two before one month: "двенадцатое и четырнадцатое декабря".
    rf"|(?=\s+(?:и|или|на)\s+(?:(?:двадцать|тридцать)\s+)?(?:{_words(_RU_ORDINAL_STEMS)})"
    rf"\w*\s+(?:{_MONTH})))",
    _I,
)


def _ordinal_words(text: str) -> str:
    def english(match: re.Match[str]) -> str:
        for lead, ordinal in (("lead", "ord"), ("lead2", "ord2"), ("lead3", "ord3")):
            if match.group(ordinal):
                number = _ordinal_value(match.group(ordinal), _EN_ORDINALS)
                return f"{match.group(lead)}{number}th"
        return match.group(0)

    def russian(match: re.Match[str]) -> str:
        number = _ordinal_value(match.group("ord"), _RU_ORDINAL_STEMS)
        tail = match.group("tail")
        if tail is None:
            return f"{number}-е"
        return f"{number}-го{tail}" if tail.strip().casefold() == "числа" else f"{number}{tail}"

    return _RU_ORDINAL_DAY.sub(russian, _EN_ORDINAL_DAY.sub(english, text))


def _clause_start(text: str, at: int) -> int:
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, at)]
    return starts[-1] if starts else 0


def _clause(text: str, start: int, end: int) -> str:
    """The clause of `text` around [start, end) (its tense decides a bare weekday)."""
    after = _CLAUSE_END.search(text, end)
    return text[_clause_start(text, start) : after.start() if after else len(text)]


def _in_past(clause: str, cues: LanguageCues) -> bool:
    """Whether a clause tells of the past: a past marker and no future one."""
    if cues.future.search(clause):
        return False
    if cues.language != "ru":
        return bool(cues.past.search(clause))
    words = re.findall(r"\w+", clause)
    if any(verb_tense(w) == "futr" for w in words):
        return False
    # The regex finds candidates ("-л", "-ла", "назад"); the dictionary keeps the verbs among the
    # "-л/-ла/-ли" ones ("недели", "дела" are nouns).
    for match in cues.past.finditer(clause):
        word = match.group(0)
        if not re.fullmatch(r"\w+(?:л|ла|ли|ло|лся|лась|лись|лось)", word, _I):
            return True
        if verb_tense(word) == "past":
            return True
    return False


_SINCE = re.compile(r"\bsince\s+$", _I)
_SINCE_NEAR = re.compile(r"\bsince(?:\s+[^\s.,;!?]+){0,4}\s+$", _I)
_IN_BEFORE = re.compile(r"\bin\s+$", _I)


def _after(base: date, weekday: int) -> date:
    return base + timedelta(days=(weekday - base.weekday() - 1) % 7 + 1)


def _before(base: date, weekday: int) -> date:
    return base - timedelta(days=(base.weekday() - weekday - 1) % 7 + 1)


def _weekday_index(word: str) -> int:
    lowered = word.casefold()
    for index, (en, ru) in enumerate(zip(_WEEKDAYS_EN, _WEEKDAYS_RU, strict=True)):
        if lowered.startswith(en) or lowered.startswith(ru):
            return index
    raise ValueError(word)


# A plan moved from one day to another: the day it was on was ahead too, whatever the tense
# ("перенесли с четверга на понедельник", "moved from Thursday to Monday").
_MOVED_FROM = re.compile(
    rf"\b(?:from|с|со)\s+(?:{_WEEKDAY}|the\s+\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}-?(?:го|е|ого)"
    # "from october 17 to 12/12", "from the 9th of March to"
    rf"|(?:{_MONTH_NAMES})\s+\d{{1,2}}(?:st|nd|rd|th)?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES}))"
    r"\s+(?:to|на)\s+",
    _I,
)


# What is cancelled or put off had not happened yet, whatever the tense ("the concert on the
# 24th got cancelled", "концерт 24-го отменили", "the Friday shift was postponed").
_CALLED_OFF = re.compile(
    r"\b(?:cancel(?:l?ed|s|ling)?|called off|call(?:ing)? off|postponed?|rescheduled?"
    r"|(?:is|are|'s)\s+off|отмен\w*|перенес\w*|перенос\w*)\b",
    _I,
)


def _future_target(text: str, start: int, end: int | None = None) -> bool:
    if _MOVED_FROM.match(text, max(0, text.rfind(" ", 0, max(0, start - 1)) + 1)):
        return True
    if end is not None and _CALLED_OFF.search(_clause(text, start, end)):
        return True
    return bool(_TARGET_BEFORE.search(text[max(0, start - 24) : start]))


def _month_day(base: date, day: int, *, past: bool) -> date | None:
    """The day `day` of this or a neighbouring month: the next one on or after `base`, or the
    last one on or before it."""
    year, month = base.year, base.month
    for _ in range(13):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and (candidate <= base if past else candidate >= base):
            return candidate
        month += -1 if past else 1
        if month == 0:
            year, month = year - 1, 12
        elif month == 13:
            year, month = year + 1, 1
    return None


# A day and a month written in words ("30 апреля", "на 28 июля", "the 14th of April", "May 23",
# "23rd March 2025"): read here, since dateparser's search misses many inside longer messages.
_MONTH_DATE = re.compile(
    rf"\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th|-?го|-?е)?\s+(?:of\s+)?(?P<m1>{_MONTH})(?![a-zа-яё])"
    rf"(?:\s*,?\s*(?P<y1>\d{{4}})\b)?"
    rf"|\b(?P<m2>{_MONTH})(?![a-zа-яё])\s+(?:the\s+)?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
    rf"(?:\s*,?\s*(?P<y2>\d{{4}})\b)?",
    _I,
)
_MONTH_STEMS = (
    ("jan", "январ"), ("feb", "феврал"), ("mar", "март"), ("apr", "апрел"), ("may", "ма"),
    ("jun", "июн"), ("jul", "июл"), ("aug", "август"), ("sep", "сентябр"), ("oct", "октябр"),
    ("nov", "ноябр"), ("dec", "декабр"),
)  # fmt: skip
_YEAR_SAID = re.compile(r"\s*,?\s*(?P<which>last|next|this)\s+year\b", _I)
# Further than this from when it was said, a yearless day is read in the year the tense gives.
_TENSE_REACH = timedelta(days=90)


def _month_index(word: str) -> int:
    lowered = word.casefold()
    return next(i for i, stems in enumerate(_MONTH_STEMS, 1) if lowered.startswith(stems))


def _in_year(month: int, day: int, today: date, *, past: bool, ahead: bool) -> date | None:
    """A yearless day: the occurrence nearest to today, unless the clause's tense puts it
    more than `_TENSE_REACH` the other way ("8 months since his op on the 14th of April",
    said in December, is this April; "5 мая мы расставались" too)."""
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    if not options:
        return None
    nearest = min(options, key=lambda d: abs(d - today))
    if past and nearest > today + _TENSE_REACH:
        return max((d for d in options if d <= today), default=nearest)
    if (ahead or not past) and nearest < today - _TENSE_REACH:
        # Months back with no past tense: a plan ("is getting married on 19th september",
        # said in February).
        return min((d for d in options if d >= today), default=nearest)
    return nearest


def _month_dates(clean: str, today: date, cues: LanguageCues) -> list[_Found]:
    out = []
    for match in _MONTH_DATE.finditer(clean):
        month_word = match.group("m1") or match.group("m2")
        if match.group("m2") and (month_word == "may" or not month_word.isascii()):
            continue  # "you may 2x it", "с августа 30 (тысяч)": Russian puts the day first
        if match.group("m2") and re.search(r"[a-z]{4}\.$", month_word, _I):
            continue  # "since march. 10/10": the sentence ended ("Mar. 10" is abbreviated)
        day = int(match.group("d1") or match.group("d2"))
        year = match.group("y1") or match.group("y2")
        month = _month_index(month_word)
        said = _YEAR_SAID.match(clean, match.end())
        try:
            if year is not None:
                when: date | None = date(int(year), month, day)
            elif said is not None:
                shift = {"last": -1, "next": 1}.get(said.group("which").casefold(), 0)
                when = date(today.year + shift, month, day)
            else:
                clause = _clause(clean, match.start(), match.end())
                ahead = _future_target(clean, match.start(), match.end())
                # "dip free since May 23", "8 months since his op on the 14th of April"
                since = bool(_SINCE_NEAR.search(clean[: match.start()]))
                past = since or (not ahead and _in_past(clause, cues))
                when = _in_year(month, day, today, past=past, ahead=ahead)
                if since and when is not None and when > today:
                    # "goin steady since march 1st", said in December: this March.
                    when = when.replace(year=when.year - 1)
        except ValueError:
            when = None
        if when is not None:
            out.append(_Found(match.start(), match.end(), when))
    return out


# A weekday with its day of the month ("saturday the 21st", "sat the 26th", "в субботу 21-го"):
# the month in which that day falls on that weekday, the one nearest to when it was said.
_WEEKDAY_AND_DAY = re.compile(
    rf"\b(?P<day>{_WEEKDAY}|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\s*,?\s+(?:the\s+)?"
    r"(?P<n>\d{1,2})(?:st|nd|rd|th|-?го|-?е)\b",
    _I,
)


def _weekday_and_day(today: date, weekday: int, number: int) -> date | None:
    best: date | None = None
    for shift in range(-3, 4):
        year, month = divmod(today.month - 1 + shift, 12)
        try:
            candidate = date(today.year + year, month + 1, number)
        except ValueError:
            continue
        if candidate.weekday() == weekday and (
            best is None or abs(candidate - today) < abs(best - today)
        ):
            best = candidate
    return best


def _next_word(text: str, end: int) -> str:
    match = re.match(r"\s*(\w+)", text[end:])
    return match.group(1).casefold() if match else ""


# A perfect negated ("haven't had a drink in two weeks") makes "in N weeks" a span up to now.
_NOT_SINCE = re.compile(r"\b(?:haven'?t|hasn'?t|havent|hasnt)\b", _I)
# So do a first time, a negation and a count right before "in": "first time in 2 weeks", "not a
# drop in five weeks", "4 energy drinks in 2 days", "one lie in a week".
_SPAN_BEFORE = re.compile(
    rf"(?:\bfirst(?:\s+\w+){{0,2}}|\b(?:not|no|never|didn'?t|didnt)(?:\s+\w+){{0,3}}"
    rf"|\b(?:\d+|{_EN_COUNT}|once|twice)(?:\s+\w+){{1,2}})\s+$",
    _I,
)


# "first session in 2 weeks" is when an appointment is; "first time in 2 weeks", "first drink in
# 2 weeks", or a first appointment told in the past, is how long it had been.
_FIRST_OF_ITS_KIND = re.compile(
    r"^first\s+(?:session|appointment|appt|class|lesson|shift|meeting|scan|check-?up"
    r"|consult(?:ation)?|interview|match|game|fixture)\s+$",
    _I,
)


_SINCE_OR_TODAY = re.compile(r"\b(?:since|after|today|tonight|tomorrow|tmrw|yesterday)\b", _I)


def _a_span(clean: str, match: re.Match[str], cues: LanguageCues) -> bool:
    """Whether an "in N days / weeks" says how long, not which day."""
    if not match.group(0).casefold().startswith("in"):
        return False
    head = clean[_clause_start(clean, match.start()) : match.start()]
    clause = _clause(clean, match.start(), match.end())
    span = _SPAN_BEFORE.search(head)
    if _NOT_SINCE.search(clause):
        return True
    rest = clause.replace(match.group(0), " ")
    if (
        span
        and _FIRST_OF_ITS_KIND.match(span.group(0))
        and not _in_past(clause, cues)
        and not day_names(rest)  # "first match in 2 weeks tomorrow": the day is tomorrow
        and not _SINCE_OR_TODAY.search(rest)
    ):
        return False
    return bool(span)


# A range of counts is written smaller first and unpadded; a day-first date ("15-03") is not.
_COUNT_RANGE = re.compile(r"([1-9]\d?)\s*-\s*([1-9]\d?)")


# A month and a year, with no day: vague (the labelling guide names no day for it).
_MONTH_AND_YEAR = re.compile(rf"(?:in\s+|of\s+)?(?:{_MONTH})\.?\s*,?\s*\d{{4}}", _I)
# A month, a comma and a number that is not a year: the number counts something else; so does
# one after the sentence ends ("since march. 10/10 no regrets"; "Mar. 10" is an abbreviation's
# dot).
_MONTH_COMMA_COUNT = re.compile(
    rf"\b(?:{_MONTH})(?:\s*,|(?<=[a-zа-яё]{{4}})[.!?])\s*\d{{1,2}}\b(?!\s*,?\s*\d{{4}})", _I
)


def _day_first(sent_at: datetime) -> bool:
    """Whether "3/9" is the 3rd of September: everywhere but the Americas, whose UTC offsets are
    all negative (the writers' own clocks: month first on every one, day first on every other)."""
    offset = sent_at.utcoffset()
    return offset is None or offset >= timedelta(0)


def _written(
    clean: str, base: datetime, cues: LanguageCues, day_first: bool = True
) -> list[_Found]:
    """Dates written with a month (or slashes), by dateparser; None of its other finds."""
    language = _LANGUAGES.get(cues.language, "en")
    settings = {
        "DATE_ORDER": "DMY" if day_first or language != "en" else "MDY",
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = _search()(clean, languages=[language], settings=settings) or []
    out: list[_Found] = []
    cursor = 0
    for phrase, when in found:
        at = clean.find(phrase, cursor)
        at = at if at >= 0 else clean.find(phrase)
        cursor = max(cursor, at + len(phrase))
        has_month = bool(_MONTH_WORD.search(phrase))
        if not any(c.isdigit() for c in phrase) or not (has_month or _WRITTEN.search(phrase)):
            continue  # "in January", a bare number, a time: not a written day
        if re.fullmatch(r"\W*\d{4}\W*", phrase):
            continue
        if _MONTH_AND_YEAR.fullmatch(phrase.strip()):
            continue  # "since june 2024", "until march 2027": a month, no day of it
        if _MONTH_COMMA_COUNT.search(phrase):
            continue  # "a house for september, 3 beds", "since july, 5 km": a count after it
        numbers = [int(n) for n in re.findall(r"\d+", phrase) if len(n) < 4]
        if numbers and min(numbers) > 31:
            continue  # "her 70th in june": a birthday's count, not a day
        counts = _COUNT_RANGE.fullmatch(phrase.strip()) or (
            None if has_month else _COUNT_RANGE.match(phrase.strip())
        )
        if counts and int(counts.group(1)) < int(counts.group(2)):
            continue  # "по 2-3 банки", "штук 6-8 в день": a range of counts, not a day
        if _YEAR.search(phrase):
            day: date | None = when.date()
        else:
            # A yearless day, as one written in words: the nearest, unless the tense puts it
            # months the other way ("wedding date set 6/20", said in December, is next June).
            ahead = _future_target(clean, at, at + len(phrase))
            past = not ahead and _in_past(_clause(clean, at, at + len(phrase)), cues)
            day = _in_year(when.month, when.day, base.date(), past=past, ahead=ahead)
        if day is not None:
            out.append(_Found(at, at + len(phrase), day))
    return out


_DAY_NAME = re.compile(
    rf"\b(?:{_WEEKDAY}|{_MONTH}|today|tonight|tomorrow|сегодня|завтра|послезавтра)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th|-?го|-?е)?\b",
    _I,
)


def day_names(text: str) -> frozenset[str]:
    """The words naming a day in `text` ("friday", "пятниц", "18"), as stems, to tell whether
    two sentences put something on the same day."""
    return frozenset(stem(m.group(0).casefold()) for m in _DAY_NAME.finditer(_rewrite(text)))


# "moved nadia's meal from saturday to sunday": a plan moved, its two days named, not a range.
_MOVED_BEFORE = re.compile(
    r"\b(?:mov(?:e|ed|es|ing|in)|push(?:ed|ing|in)?|switch(?:ed|ing)?|chang(?:e|ed|ing)|bump(?:ed)?"
    r"|shift(?:ed)?|перенес\w*|перенос\w*|сдвину\w*)(?:\s+[^\s.,;!?]+){0,4}\s+$",
    _I,
)


def _blank_unless_moved(clean: str, match: re.Match[str]) -> str:
    if match.group("range") and _MOVED_BEFORE.search(clean[: match.start()]):
        return match.group(0)
    return " " * len(match.group(0))


def resolve_dates(text: str, sent_at: datetime, cues: LanguageCues) -> tuple[date, ...]:
    """The days `text` names, in order of mention, without repeats."""
    clean = _rewrite(text)
    base = sent_at.replace(tzinfo=None)  # the sender's wall clock: "tomorrow" is theirs
    today = base.date()
    found: list[_Found] = []
    # Blank what names no day, keeping positions (a space for each character).
    clean = _NOT_A_DAY.sub(lambda m: _blank_unless_moved(clean, m), clean)
    for match in _DAY_MONTH.finditer(clean):
        day, month, year = match.groups()
        full_year = today.year if year is None else int(year) + (2000 if len(year) == 2 else 0)
        try:
            found.append(_Found(match.start(), match.end(), date(full_year, int(month), int(day))))
        except ValueError:
            continue
    clean = _DAY_MONTH.sub(lambda m: " " * len(m.group(0)), clean)
    words = _month_dates(clean, today, cues)
    for written in words:
        clean = clean[: written.start] + " " * (written.end - written.start) + clean[written.end :]
    found += words
    if _WRITTEN.search(clean):
        found += _written(clean, base, cues, _day_first(sent_at))
    taken = [(f.start, f.end) for f in found]

    def free(start: int, end: int) -> bool:
        # A weekday beside a written date ("Monday, 18 May") is that date's.
        return all(end < s - 2 or start > e + 2 for s, e in taken)

    for match in _WEEKDAY_AND_DAY.finditer(clean):
        named = match.group("day").casefold()
        weekday = next((i for i, w in enumerate(_WEEKDAYS_EN) if w.startswith(named[:3])), None)
        weekday = _weekday_index(named) if weekday is None else weekday
        pinned = _weekday_and_day(today, weekday, int(match.group("n")))
        if pinned is not None and free(match.start(), match.end()):
            found.append(_Found(match.start(), match.end(), pinned))
            taken.append((match.start(), match.end()))
    for match in _WEEKS_AHEAD.finditer(clean):
        if _a_span(clean, match, cues):
            continue  # "havent ordered a takeaway in three weeks": for three weeks
        # As "in 3 days", whatever the tense: "said she'd let me know in 2 weeks" names a day
        # (a duration, "lost 2 kg in a week", is rarer in the labelled messages).
        found.append(_Found(match.start(), match.end(), today + timedelta(weeks=_weeks(match))))
        taken.append((match.start(), match.end()))  # "a week from today" names one day
    for match in _WEEKS_AGO.finditer(clean):
        found.append(_Found(match.start(), match.end(), today - timedelta(weeks=_weeks(match))))
        taken.append((match.start(), match.end()))
    for match in _RELATIVE_DAY.finditer(clean):
        if not free(match.start(), match.end()):
            continue
        offset = _RELATIVE[re.sub(r"\s+", " ", match.group(0).casefold())]
        found.append(_Found(match.start(), match.end(), today + timedelta(days=offset)))
    for match in _COUNTED.finditer(clean):
        if _a_span(clean, match, cues):
            continue  # "4 energy drinks in 2 days"
        ahead = match.group("ahead") or match.group("ahead_from") or match.group("ru_ahead")
        ago = match.group("ago") or match.group("ru_ago")
        offset = _count(ahead) if ahead else -_count(ago or "0")
        found.append(_Found(match.start(), match.end(), today + timedelta(days=offset)))
    for match in _WEEKDAY_PHRASE.finditer(clean):
        if not free(match.start(), match.end()):
            continue
        weekday = _weekday_index(match.group("day"))
        modifier = match.group("mod")
        if modifier:
            after = bool(_AFTER_MODIFIER.match(modifier)) and "past" not in modifier.casefold()
        elif _SINCE.search(clean[: match.start()]):
            after = False  # "back in Berlin since saturday night"
        elif _future_target(clean, match.start(), match.end()):
            after = True
        else:
            after = not _in_past(_clause(clean, match.start(), match.end()), cues)
        day = _after(today, weekday) if after else _before(today, weekday)
        found.append(_Found(match.start(), match.end(), day))
    for match in _DAY_OF_MONTH.finditer(clean):
        number = int(match.group("en") or match.group("ru"))
        following = _next_word(clean, match.end())
        if following == "числа" or match.group(0).casefold().endswith("го"):
            pass  # "18-го" names a day whatever follows it
        elif _MONTH_WORD.match(following) or following == "of":
            continue  # a written date: dateparser's
        elif following in _ORDINAL_NOUNS:
            continue  # "the 3rd floor", "18-е место"
        elif match.group(0).casefold().endswith("му") and following and is_dative_noun(following):
            continue  # "к 3-му уроку", "по 2-му каналу": a count, its noun in the dative
        if not 1 <= number <= 31 or not free(match.start(), match.end()):
            continue
        before = clean[max(0, match.start() - 12) : match.start()]
        if _MONTH_WORD.search(before):
            continue  # "June the 5th"
        if match.group("en") and _IN_BEFORE.search(before):
            continue  # "a cigar in the 7th", "in the 3rd": an innings or a round, not a day
        past = not _future_target(clean, match.start(), match.end()) and _in_past(
            _clause(clean, match.start(), match.end()), cues
        )
        day = _month_day(today, number, past=past)
        if day is not None:
            found.append(_Found(match.start(), match.end(), day))
    found.sort(key=lambda f: f.start)
    return tuple(dict.fromkeys(f.day for f in found))
