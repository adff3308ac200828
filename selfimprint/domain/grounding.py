"""The grounding guard: a memory is stored only when the user's own words support it.

An extractor's output is untrusted. A weak model copies its prompt's example ("Anna is the
user's sister." for a user who never mentioned an Anna), a strong one can still add a detail
from nowhere. So every candidate, from any extractor, passes two checks before it is planned:

1. **It cites the batch**: at least one of its `source_message_ids` is a user message of the
   batch it was extracted from. Citing nothing (or only assistant turns) is not a fallback to
   "all the messages": the candidate is dropped.
2. **Its words are there**: the share of its content words (Snowball stems, `domain.terms`;
   the words an extractor uses for the user itself left out) that appear in the cited messages
   is at least `min_support`. Two stems match when they are equal or one starts with the other
   and the shorter has at least `min_prefix` letters: Russian inflects ("волнуюсь" /
   "волнуется" stem to "волну" / "волнует"). Digits count when the messages have them and are
   ignored when not (a resolved date adds digits the user never typed).
3. **No invented name or count**: every capitalised word after the first (a person, place or
   company; month and weekday names aside) and every number word ("three", "трое") appears in
   the cited messages. One wrong name among right words is the commonest confident error.

Lexical on purpose: the extractor writes memories in the user's language (prompts.extraction),
the test is deterministic and explainable, and it needs no model. It cannot tell a faithful
paraphrase built from synonyms from an invention; `min_support` is tuned for that trade-off by
`scripts/eval_grounding.py` on `tests/data/grounding/`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.terms import read, stem

# How extractors refer to the user in the third person: never evidence either way.
_THE_USER: Final = frozenset(stem(w) for w in ("user", "users", "пользователь", "пользователя"))
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-ZА-ЯЁ][\w'’-]*")
_CALENDAR: Final = frozenset(
    """
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """.split()
)


class GroundingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Share of a candidate's content words the cited messages must hold; tuned on the labelled
    # candidates (scripts/eval_grounding.py, BENCHMARKS.md "Grounding guard").
    min_support: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    # Project choice: stems match on a common prefix this long (Russian inflection), or when
    # one this long sits inside the other (derivation: "prepared" / "underprepared").
    min_prefix: Annotated[int, Field(ge=2)] = 4
    min_inside: Annotated[int, Field(ge=3)] = 5


DEFAULT_GROUNDING: Final = GroundingConfig()


@dataclass(frozen=True)
class Grounding:
    sources: tuple[str, ...]  # the cited user messages of the batch, in batch order
    support: float  # share of the content's words found in them (0.0 when none is cited)
    invented: tuple[str, ...] = ()  # names and number words the messages never say

    def holds(self, config: GroundingConfig = DEFAULT_GROUNDING) -> bool:
        return bool(self.sources) and not self.invented and self.support >= config.min_support

    def why_not(self, config: GroundingConfig = DEFAULT_GROUNDING) -> str:
        if not self.sources:
            return "cites no user message of its batch"
        if self.invented:
            return f"says what its messages do not: {', '.join(self.invented)}"
        return f"support {self.support:.2f} < {config.min_support:.2f}"


def _words(text: str) -> frozenset[str]:
    # A label before a colon ("AUD RETAKE: 81!!") is the user's words too: `read` sets it
    # apart as a speaker's, which a message of the user's own is not.
    reading = read(text)
    label = read(reading.speaker).stems if reading.speaker else frozenset()
    return (reading.stems | label) - _THE_USER


def _digits(text: str) -> frozenset[str]:
    return frozenset(n for n in read(text).numbers if any(c.isdigit() for c in n))


def _number_words(text: str) -> frozenset[str]:
    return frozenset(n for n in read(text).numbers if not any(c.isdigit() for c in n))


def _names(text: str) -> list[str]:
    """Capitalised words after the first: names of people, places, companies."""
    return [w for w in _CAPITALISED.findall(text.strip()) if w.casefold() not in _CALENDAR]


def _matches(word: str, pool: frozenset[str], config: GroundingConfig) -> bool:
    """Equal stems, one the other's start (inflection), or a long stem inside another
    (derivation: "underprepar" holds "prepar")."""
    if word in pool:
        return True
    for other in pool:
        short, long_ = (word, other) if len(word) <= len(other) else (other, word)
        if len(short) >= config.min_prefix and long_.startswith(short):
            return True
        if len(short) >= config.min_inside and short in long_:
            return True
    return False


def support(
    content: str, texts: Sequence[str], config: GroundingConfig = DEFAULT_GROUNDING
) -> float:
    """The share of `content`'s words that `texts` hold (1.0 for a content of no words)."""
    pool = frozenset().union(*(_words(t) for t in texts)) if texts else frozenset()
    digits = frozenset().union(*(_digits(t) for t in texts)) if texts else frozenset()
    wanted = _words(content)
    shared_digits = len(_digits(content) & digits)
    if not wanted and not shared_digits:
        return 1.0
    held = sum(1 for w in wanted if _matches(w, pool, config)) + shared_digits
    return held / (len(wanted) + shared_digits)


def invented(
    content: str,
    texts: Sequence[str],
    config: GroundingConfig = DEFAULT_GROUNDING,
    known: Sequence[str] = (),
) -> tuple[str, ...]:
    """The names and number words of `content` that `texts` never say. A name may also come
    from `known` texts (the batch's other messages, the user's recent memories): "the Globex
    interview" for "the interview is tomorrow" names what the user said before."""
    pool = frozenset().union(*(_words(t) for t in (*texts, *known)))
    said_numbers = frozenset().union(*(_number_words(t) for t in texts)) if texts else frozenset()
    names = [
        name
        for name in _names(content)
        if (stems := _words(name)) and not all(_matches(w, pool, config) for w in stems)
    ]
    numbers = sorted(_number_words(content) - said_numbers)
    return tuple(dict.fromkeys([*names, *numbers]))


def ground(
    content: str,
    source_message_ids: Sequence[str],
    messages: Sequence[Message],
    config: GroundingConfig = DEFAULT_GROUNDING,
    known: Sequence[str] = (),
) -> Grounding:
    """Which user messages of the batch the candidate cites, and how well they support it;
    `known`: texts a name may also come from (see `invented`)."""
    wanted = set(source_message_ids)
    cited = [m for m in messages if m.id in wanted and m.role is Role.USER]
    if not cited:
        return Grounding((), 0.0)
    texts = [m.text for m in cited]
    return Grounding(
        sources=tuple(m.id for m in cited),
        support=support(content, texts, config),
        invented=invented(
            content,
            texts,
            config,
            [*(m.text for m in messages if m.role is Role.USER and m.id not in wanted), *known],
        ),
    )
