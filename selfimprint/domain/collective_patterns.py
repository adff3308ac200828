"""CollectiveImprint patterns (spec §3.7): what a failed request looks like with the user taken out.

An episode is a context the assistant was given for a request the user then marked unhelpful.
It is reduced to `RequestFeatures`, a handful of enumerated values computed from the request
alone: its language, its mood (question / plan / statement), a coarse request class from the
fixed `REQUEST_CUES` taxonomy, and whether the context served held any memory. The pattern key
is built only from these values, and a hint is a fixed template per class and context state in
the pattern's language: no word of any user can reach the shared layer, because nothing the
user wrote is ever copied, only matched against cues written here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from selfimprint.domain.terms import read

# Bumped when the features or the taxonomy change: old keys then simply stop matching.
KEY_VERSION: Final = "v1"


class PatternLanguage(StrEnum):
    """Languages with hint templates; any other language is pooled as OTHER (hints in English)."""

    EN = "en"
    RU = "ru"
    OTHER = "other"


class Mood(StrEnum):
    QUESTION = "question"
    PLAN = "plan"
    STATEMENT = "statement"


class RequestClass(StrEnum):
    RECALL = "recall"  # the user asks about something they told before
    ADVICE = "advice"
    PLANNING = "planning"
    EMOTIONAL_SUPPORT = "emotional_support"
    SMALL_TALK = "small_talk"
    OTHER = "other"


class ContextState(StrEnum):
    EMPTY = "empty"  # the context held no memory
    SERVED = "served"


class CollectivePatternConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # §3.7 counts "active users" without defining them; project choice: active = a message in
    # the last 30 days, the spec's own inactivity line (§3.5 table: "inactive 30+ days").
    active_window: timedelta = timedelta(days=30)


# The fixed taxonomy, as data: per class, cue fragments (a Python regex fragment each, matched
# at word edges against the casefolded request with ё folded to е), English then Russian. The
# class with most cue hits wins; ties go to the earlier class, so RECALL (what a memory service
# exists for) wins over the others. No hit: OTHER.
REQUEST_CUES: Final[Mapping[RequestClass, tuple[str, ...]]] = {
    RequestClass.RECALL: (
        r"remember\w*",
        r"recall\w*",
        r"remind me",
        r"did i (?:tell|say|mention)",
        r"what did i",
        r"last time",
        r"i told you",
        r"forg[eo]t\w*",
        r"помни\w*",
        r"вспомн\w*",
        r"напомн\w*",
        r"я (?:говорил|говорила|рассказывал\w*)",
        r"в прошлый раз",
        r"забыл\w*",
    ),
    RequestClass.ADVICE: (
        r"should i",
        r"advi[cs]e\w*",
        r"recommend\w*",
        r"suggest\w*",
        r"what do you think",
        r"which is better",
        r"is it worth",
        r"посоветуй\w*",
        r"совет\w*",
        r"стоит ли",
        r"как лучше",
        r"что лучше",
        r"рекоменд\w*",
    ),
    RequestClass.PLANNING: (
        r"plan\w*",
        r"schedul\w*",
        r"organi[sz]\w*",
        r"tomorrow",
        r"next (?:week|month)",
        r"to-?do",
        r"deadline\w*",
        r"план\w*",
        r"спланир\w*",
        r"расписан\w*",
        r"организ\w*",
        r"завтра",
        r"на следующей неделе",
        r"дедлайн\w*",
        r"успеть",
    ),
    RequestClass.EMOTIONAL_SUPPORT: (
        r"i feel\w*",
        r"feeling",
        r"sad",
        r"anxious",
        r"anxiety",
        r"stress\w*",
        r"lonely",
        r"upset",
        r"depressed",
        r"overwhelmed",
        r"scared",
        r"worried",
        r"чувствую",
        r"грустн\w*",
        r"тревож\w*",
        r"одинок\w*",
        r"страшно",
        r"переживаю",
        r"плохо мне",
        r"мне плохо",
        r"расстро\w*",
        r"устал\w*",
    ),
    RequestClass.SMALL_TALK: (
        r"hi",
        r"hello",
        r"hey",
        r"how are you",
        r"good (?:morning|evening|night)",
        r"thanks?",
        r"thank you",
        r"привет\w*",
        r"здравствуй\w*",
        r"как дела",
        r"как ты",
        r"доброе утро",
        r"добрый (?:день|вечер)",
        r"спасибо",
    ),
}

_CUE_PATTERNS: Final = {
    kind: re.compile(r"(?<!\w)(?:" + "|".join(cues) + r")(?!\w)")
    for kind, cues in REQUEST_CUES.items()
}

# One sentence per class and one per context state, per template language: a hint is their
# concatenation, so every hint is fixed text written here.
_CLASS_HINTS: Final[Mapping[PatternLanguage, Mapping[RequestClass, str]]] = {
    PatternLanguage.EN: {
        RequestClass.RECALL: "Users often find answers to requests to recall something they "
        "said before unhelpful.",
        RequestClass.ADVICE: "Users often find answers to requests for advice unhelpful.",
        RequestClass.PLANNING: "Users often find answers to planning requests unhelpful.",
        RequestClass.EMOTIONAL_SUPPORT: "Users often find answers unhelpful when they share "
        "how they feel.",
        RequestClass.SMALL_TALK: "Users often find answers to small talk unhelpful.",
        RequestClass.OTHER: "Users often find answers to requests like this one unhelpful.",
    },
    PatternLanguage.RU: {
        RequestClass.RECALL: "Пользователи часто недовольны ответом, когда просят вспомнить "
        "то, что рассказывали раньше.",
        RequestClass.ADVICE: "Пользователи часто недовольны ответом на просьбу о совете.",
        RequestClass.PLANNING: "Пользователи часто недовольны ответом на просьбу помочь с планами.",
        RequestClass.EMOTIONAL_SUPPORT: "Пользователи часто недовольны ответом, когда делятся "
        "своими чувствами.",
        RequestClass.SMALL_TALK: "Пользователи часто недовольны ответом на светскую беседу.",
        RequestClass.OTHER: "Пользователи часто недовольны ответом на подобные просьбы.",
    },
}
_STATE_HINTS: Final[Mapping[PatternLanguage, Mapping[ContextState, str]]] = {
    PatternLanguage.EN: {
        ContextState.EMPTY: "Memory holds nothing on this: say so plainly and ask the user, "
        "rather than guess.",
        ContextState.SERVED: "The memories given may miss the point: check what the user "
        "means before relying on them.",
    },
    PatternLanguage.RU: {
        ContextState.EMPTY: "В памяти об этом ничего нет: честно скажите об этом и "
        "переспросите, не угадывайте.",
        ContextState.SERVED: "Данные воспоминания могут быть не о том: уточните, что имеет в "
        "виду пользователь, прежде чем на них опираться.",
    },
}


class RequestFeatures(BaseModel):
    """An episode reduced to enumerated values: everything CollectiveImprint learns of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    language: PatternLanguage
    mood: Mood
    request_class: RequestClass
    context: ContextState

    @property
    def key(self) -> str:
        """The pattern key: only enumerated values, so it can carry no user text."""
        parts = (self.language, self.mood, self.request_class, self.context)
        return ":".join((KEY_VERSION, *(p.value for p in parts)))


def pattern_language(language: str) -> PatternLanguage:
    """The template language of a detected language code (`domain.language`)."""
    try:
        return PatternLanguage(language)
    except ValueError:
        return PatternLanguage.OTHER


def mood_of(message: str) -> Mood:
    reading = read(message)
    if reading.asks:
        return Mood.QUESTION
    return Mood.PLAN if reading.intends else Mood.STATEMENT


def classify_request(message: str) -> RequestClass:
    """The request's class in the fixed taxonomy: most cue hits, ties to the earlier class."""
    text = message.casefold().replace("ё", "е")
    hits = {kind: len(pattern.findall(text)) for kind, pattern in _CUE_PATTERNS.items()}
    best = max(hits.values(), default=0)
    if best == 0:
        return RequestClass.OTHER
    return next(kind for kind, count in hits.items() if count == best)


def request_features(message: str, language: str, memories_served: int) -> RequestFeatures:
    """The features of a request and the context served for it (`memories_served` memories)."""
    return RequestFeatures(
        language=pattern_language(language),
        mood=mood_of(message),
        request_class=classify_request(message),
        context=ContextState.EMPTY if memories_served == 0 else ContextState.SERVED,
    )


def hint_for(features: RequestFeatures) -> str:
    """The operational hint of a graduated pattern, in its language (English for OTHER)."""
    language = (
        PatternLanguage.EN if features.language is PatternLanguage.OTHER else features.language
    )
    kind, state = features.request_class, features.context
    return f"{_CLASS_HINTS[language][kind]} {_STATE_HINTS[language][state]}"
