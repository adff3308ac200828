"""The words of a statement that carry its content, as Snowball stems (EN / RU by each word's
script): what the restatement test compares and what retrieval matches a query against.

Function words and conversational filler carry no fact; negations and numbers are kept apart
(the restatement test compares them on their own). For retrieval, a memory's terms are its
content stems plus its numbers and its speaker label's words (`search_terms`): a query that names
a person, a place or a year should find the memories that say it, which embeddings of short chat
lines rank poorly (docs/benchmarks-locomo.md).

Lexical relevance (`lexical_relevance`) is the share of the query's information a memory holds:
the inverse-document-frequency weight of the query terms it contains over that of all the query
terms the user's memories contain at all, in [0, 1]. The frequencies are the user's own, so one
user's vocabulary never shapes another's ranking.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import snowballstemmer

# A memory keeps at most this many search terms (a 300-character memory has ~30 words).
MAX_TERMS: Final = 64

LABEL = re.compile(r"^\s*([A-ZА-ЯЁ][\w'’.-]*(?: [A-ZА-ЯЁ][\w'’.-]*){0,2}):\s+(.*)$", re.DOTALL)
_WORD = re.compile(r"\w+(?:[.,]\d+)*")
_NOT = re.compile(r"n['’]t\b", re.IGNORECASE)
_CYRILLIC = re.compile(r"[а-яё]")

FUNCTION_WORDS: Final = frozenset(
    """
    a an the i me my mine myself we us our ours you your yours he him his she her hers it its
    they them their this that these those there here is am are was were be been being have has
    had do does did to of in on at for with by from as and or but so if then than too very just
    really also about up out into over again still even ever yeah yes oh ok okay well um uh hey
    hi hello wow honestly actually basically anyway btw lol haha guess think pretty quite some
    any all much many more most own s m re ve ll d t will would can could should shall may might
    must got get gets getting what when where who whom whose why how which
    я меня мне мной мы нас нам нами ты тебя тебе тобой вы вас вам вами он его ему им нем нём она
    её ее ей ней оно они их ими них это этот эта эти этого этой тот та то те и а но или да же ли
    бы в во на с со к ко по за из от до у о об обо для при про как так что чтобы ну вот уже ещё
    еще очень просто кстати вообще тоже также был была было были есть быть буду будет мой моя моё
    мое мои моего моей моих твой твоя наш наша ваш свой своя свою своей своих сам сама само
    честно типа короче слушай ой ага угу привет хм когда где кто почему зачем какой какая какое
    какие сколько чем чего кого кому
    """.split()
)
NEGATIONS: Final = frozenset(
    "not no never nothing nobody none neither nor without cannot "
    "не нет ни никогда ничего никто нигде никак без".split()
)
_NUMBER_WORDS: Final = frozenset(
    """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety dozen hundred thousand million billion once twice first second third half
    ноль один одна одно одного одну одной два две двух двум двое три трех трое четыре четырех
    пять пяти шесть шести семь семи восемь восьми девять девяти десять десяти сорок сорока сто
    ста тысяча тысячи тысяч миллион дважды трижды первый второй третий пол половина
    """.split()
)
# Russian numerals inflect: одиннадцать, двадцати, пятьдесят, двести, пятисот...
_NUMBER_STEM = re.compile(r"^(?:\w+надцат\w*|\w+дцат\w*|\w+десят\w*|двест\w*|трист\w*|\w+сот\w*)$")
# A plan, wish or guess is not what happened ("planning to go" / "went"); read before the
# function words are dropped, since "will" and "would" are among them.
INTENT_WORDS: Final = frozenset(
    """
    plan plans planning planned want wants wanna hope hoping will gonna going someday might maybe
    thinking considering would dream dreaming intend
    собираюсь собирается собираемся планирую планирует планируем хочу хочет хотим хочется
    хотелось буду будет будем может наверное мечтаю мечтает думаю
    """.split()
)


@dataclass(frozen=True)
class Reading:
    """One statement, read for comparison."""

    speaker: str | None  # a transcript label ("Anna: ..."), casefolded
    asks: bool  # a question
    intends: bool  # a plan, wish or guess
    negations: int
    numbers: frozenset[str]
    stems: frozenset[str]  # content words, label, negations and numbers left out


@lru_cache(maxsize=2)
def _stemmer(language: str) -> Any:  # the package ships no types
    return snowballstemmer.stemmer(language)


def stem(word: str) -> str:
    language = "russian" if _CYRILLIC.search(word) else "english"
    return str(_stemmer(language).stemWord(word))


def _words(text: str) -> list[str]:
    return _WORD.findall(_NOT.sub(" not", text).casefold().replace("ё", "е"))


def _is_number(word: str) -> bool:
    return any(c.isdigit() for c in word) or word in _NUMBER_WORDS or bool(_NUMBER_STEM.match(word))


def same_speaker(first: str, second: str) -> bool:
    """Whether two statements may be one speaker's: not when each carries a transcript label and
    the labels differ. An unlabelled line (a split message's later piece, a model's summary) or a
    header typed like a label ("Update: ...") is anyone's."""
    a, b = read(first).speaker, read(second).speaker
    return a is None or b is None or a == b


@lru_cache(maxsize=4096)
def read(text: str) -> Reading:
    speaker = None
    labelled = LABEL.match(text)
    if labelled:
        speaker, text = labelled.group(1).casefold(), labelled.group(2)
    words = _words(text)
    numbers = frozenset(w for w in words if _is_number(w))
    return Reading(
        speaker=speaker,
        asks="?" in text,
        intends=any(w in INTENT_WORDS for w in words),
        negations=sum(1 for w in words if w in NEGATIONS),
        numbers=numbers,
        stems=frozenset(
            stem(w)
            for w in words
            if w not in FUNCTION_WORDS and w not in NEGATIONS and w not in numbers
        ),
    )


def search_terms(text: str) -> tuple[str, ...]:
    """What retrieval matches: content stems, numbers and the speaker label's words, sorted."""
    reading = read(text)
    label = {stem(w) for w in _words(reading.speaker or "") if w not in FUNCTION_WORDS}
    return tuple(sorted(reading.stems | reading.numbers | label))[:MAX_TERMS]


def idf_weights(document_frequency: Mapping[str, int], documents: int) -> dict[str, float]:
    """BM25's inverse document frequency (always > 0) of each term some document holds."""
    return {
        term: math.log(1.0 + (documents - df + 0.5) / (df + 0.5))
        for term, df in document_frequency.items()
        if df > 0
    }


def lexical_relevance(
    query_terms: Iterable[str],
    memory_terms: Iterable[str],
    idf: Mapping[str, float],
    context_terms: Iterable[str] = (),
    context_share: float = 0.0,
) -> float | None:
    """The idf-weighted share of the query terms (those the user's memories hold at all) that
    the memory holds; a term only the message it replied to holds (`context_terms`,
    domain.reply_context) counts `context_share` of its weight. None when no memory holds any
    query term (no lexical evidence)."""
    # Summed in the query's order, as the Neo4j statement does, so both give the same floats.
    wanted = [t for t in dict.fromkeys(query_terms) if t in idf]
    if not wanted:
        return None
    held, around = set(memory_terms), set(context_terms)
    found = sum(
        idf[t] if t in held else (context_share * idf[t] if t in around else 0.0) for t in wanted
    )
    return found / sum(idf[t] for t in wanted)
