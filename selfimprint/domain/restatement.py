"""Whether a new statement says the same thing as a stored memory: the test behind reinforcement
(spec §3.3, a memory mentioned again) and compaction's dedupe (spec §3.9, near-duplicates merge).

A merge keeps one text and credits it with every source, so merging two different statements
silently loses the second. Cosine alone cannot decide: with multilingual-e5-small two unrelated
chat lines sit near 0.86 and greetings above 0.92 (docs/benchmarks-locomo.md). Two statements
restate each other only when every check holds, in this order:

1. **Speaker.** A transcript line's label ("Anna: ...") names who speaks; lines of two speakers
   never merge, nor a labelled line with an unlabelled one.
2. **Mood and polarity**: a question never restates a statement ("Do you like hiking?" / "I
   like hiking"), nor a plan or wish what happened ("I'm planning to go hiking" / "I went
   hiking"); both have the same parity of negations ("I smoke" / "I don't smoke").
3. **Numbers**: the same numbers, in digits or words ("two kids" / "three kids").
4. **Meaning**, one of two ways: the same content words (Snowball stems, EN / RU by each word's
   script) with a cosine of at least `same_words_min_cosine`, or a cosine at or above the
   embedder's calibrated floor (`min_cosine`) with a Jaccard overlap of content stems of at least
   `min_overlap`, so that a different subject, place or plan does not pass on topic alone.

The floors are tuned per embedder by `scripts/eval_sameness.py` on `tests/data/sameness/`.

Type, valence and tenant are the callers' part (they compare nodes, not texts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any, Final

import snowballstemmer
from pydantic import BaseModel, ConfigDict, Field

Cosine = Annotated[float, Field(ge=-1.0, le=1.0)]


class RestatementConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Raw cosine floors by embedder (a model id starts with the key), tuned with min_overlap
    # by scripts/eval_sameness.py (BENCHMARKS.md "Restatement test"): e5-small on the labelled
    # pairs' tuning half. bge-m3 has no weights on these machines: its floor is the spec's 0.92,
    # not tuned (run the script on a GPU worker with --embedder bge-m3 before relying on it).
    min_cosine: Mapping[str, Cosine] = Field(
        default_factory=lambda: {"intfloat/multilingual-e5-small": 0.97, "BAAI/bge-m3": 0.92}
    )
    # An embedder not in the table (spec §3.9's duplicate threshold).
    default_min_cosine: Cosine = 0.92
    # Share of content stems the two statements have in common (|A ∩ B| / |A ∪ B|), tuned with
    # the e5 floor above.
    min_overlap: Annotated[float, Field(ge=0.0, le=1.0)] = 0.3
    # The same content words (overlap at least this) need only a lower cosine: e5 moves with
    # punctuation, emoji and filler ("so yeah, I'm studying for the bar exam..." is at 0.942).
    # Tuned with the two above; the checks of speaker, mood, polarity and numbers still apply.
    same_words_overlap: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    same_words_min_cosine: Cosine = 0.94

    def cosine_floor(self, embedding_model: str | None) -> float:
        for prefix, floor in self.min_cosine.items():
            if embedding_model is not None and embedding_model.startswith(prefix):
                return floor
        return self.default_min_cosine

    def lowest_cosine_floor(self) -> float:
        """The loosest floor of any path: a safe pre-filter for a pairwise scan."""
        return min([self.default_min_cosine, self.same_words_min_cosine, *self.min_cosine.values()])


DEFAULT_RESTATEMENT: Final = RestatementConfig()


class Difference(StrEnum):
    """The first check two statements failed."""

    SPEAKER = "speaker"
    COSINE = "cosine"
    MOOD = "mood"
    POLARITY = "polarity"
    NUMBERS = "numbers"
    CONTENT = "content"


@dataclass(frozen=True)
class Verdict:
    difference: Difference | None
    overlap: float  # Jaccard of content stems (0.0 when a check before it failed)

    @property
    def same(self) -> bool:
        return self.difference is None


# --- reading a statement ------------------------------------------------------------------------

_LABEL = re.compile(r"^\s*([A-ZА-ЯЁ][\w'’.-]*(?: [A-ZА-ЯЁ][\w'’.-]*){0,2}):\s+(.*)$", re.DOTALL)
_WORD = re.compile(r"\w+(?:[.,]\d+)*")
_NOT = re.compile(r"n['’]t\b", re.IGNORECASE)
_CYRILLIC = re.compile(r"[а-яё]")

# Function words and conversational filler: they carry no fact, so they neither make two
# statements the same nor different. Negations and number words are read separately.
_FUNCTION_WORDS: Final = frozenset(
    """
    a an the i me my mine myself we us our ours you your yours he him his she her hers it its
    they them their this that these those there here is am are was were be been being have has
    had do does did to of in on at for with by from as and or but so if then than too very just
    really also about up out into over again still even ever yeah yes oh ok okay well um uh hey
    hi hello wow honestly actually basically anyway btw lol haha guess think pretty quite some
    any all much many more most own s m re ve ll d t will would can could should shall may might
    must got get gets getting
    я меня мне мной мы нас нам нами ты тебя тебе тобой вы вас вам вами он его ему им нем нём она
    её ее ей ней оно они их ими них это этот эта эти этого этой тот та то те и а но или да же ли
    бы в во на с со к ко по за из от до у о об обо для при про как так что чтобы ну вот уже ещё
    еще очень просто кстати вообще тоже также был была было были есть быть буду будет мой моя моё
    мое мои моего моей моих твой твоя наш наша ваш свой своя свою своей своих сам сама само
    честно типа короче слушай ой ага угу привет хм
    """.split()
)
_NEGATIONS: Final = frozenset(
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
_INTENT: Final = frozenset(
    """
    plan plans planning planned want wants wanna hope hoping will gonna going someday might maybe
    thinking considering would dream dreaming intend
    собираюсь собирается собираемся собираюсь планирую планирует планируем хочу хочет хотим
    хочется хотелось буду будет будем может наверное мечтаю мечтает думаю
    """.split()
)


@dataclass(frozen=True)
class _Reading:
    speaker: str | None
    asks: bool
    intends: bool
    negations: int
    numbers: frozenset[str]
    stems: frozenset[str]


@lru_cache(maxsize=2)
def _stemmer(language: str) -> Any:  # the package ships no types
    return snowballstemmer.stemmer(language)


def _stem(word: str) -> str:
    language = "russian" if _CYRILLIC.search(word) else "english"
    return str(_stemmer(language).stemWord(word))


@lru_cache(maxsize=4096)
def _read(text: str) -> _Reading:
    speaker = None
    labelled = _LABEL.match(text)
    if labelled:
        speaker, text = labelled.group(1).casefold(), labelled.group(2)
    words = _WORD.findall(_NOT.sub(" not", text).casefold().replace("ё", "е"))
    numbers = frozenset(
        w
        for w in words
        if any(c.isdigit() for c in w) or w in _NUMBER_WORDS or _NUMBER_STEM.match(w)
    )
    content = (
        w for w in words if w not in _FUNCTION_WORDS and w not in _NEGATIONS and w not in numbers
    )
    return _Reading(
        speaker=speaker,
        asks="?" in text,
        intends=any(w in _INTENT for w in words),
        negations=sum(1 for w in words if w in _NEGATIONS),
        numbers=numbers,
        stems=frozenset(_stem(w) for w in content),
    )


def content_overlap(first: str, second: str) -> float:
    a, b = _read(first).stems, _read(second).stems
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def compare(
    first: str,
    second: str,
    cosine: float,
    *,
    embedding_model: str | None,
    config: RestatementConfig = DEFAULT_RESTATEMENT,
) -> Verdict:
    """Whether `second` says what `first` says, and if not, the first check that failed."""
    a, b = _read(first), _read(second)
    if a.speaker != b.speaker:
        return Verdict(Difference.SPEAKER, 0.0)
    if a.asks != b.asks or a.intends != b.intends:
        return Verdict(Difference.MOOD, 0.0)
    if a.negations % 2 != b.negations % 2:
        return Verdict(Difference.POLARITY, 0.0)
    if a.numbers != b.numbers:
        return Verdict(Difference.NUMBERS, 0.0)
    overlap = content_overlap(first, second)
    if overlap >= config.same_words_overlap and cosine >= config.same_words_min_cosine:
        return Verdict(None, overlap)
    if cosine < config.cosine_floor(embedding_model):
        return Verdict(Difference.COSINE, overlap)
    if overlap < config.min_overlap:
        return Verdict(Difference.CONTENT, overlap)
    return Verdict(None, overlap)


def restates(
    first: str,
    second: str,
    cosine: float,
    *,
    embedding_model: str | None,
    config: RestatementConfig = DEFAULT_RESTATEMENT,
) -> bool:
    return compare(first, second, cosine, embedding_model=embedding_model, config=config).same
