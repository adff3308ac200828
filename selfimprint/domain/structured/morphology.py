"""Russian morphology (pymorphy2's dictionary, through natasha), shared by the readers of the
structured extractor: one analyser per process, loaded on first use (~0.5 s, ~15 MB)."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any


@cache
def russian_morphology() -> Any:  # natasha ships no types
    from natasha import MorphVocab

    return MorphVocab()


@lru_cache(maxsize=8192)
def verb_tense(word: str) -> str | None:
    """ "past", "pres" or "futr" when the likeliest parse of the word is a finite verb, else None
    ("недели" is a noun, whatever its ending)."""
    tag = russian_morphology().parse(word.casefold())[0].tag
    if tag.POS != "VERB":
        return None
    return str(tag.tense) if tag.tense else None


@lru_cache(maxsize=8192)
def is_verb(word: str) -> bool:
    """Whether the likeliest parse of the word is a verb, finite or infinitive."""
    return str(russian_morphology().parse(word.casefold())[0].tag.POS) in {"VERB", "INFN"}


@lru_cache(maxsize=8192)
def is_first_name(word: str) -> bool:
    """Whether any parse of the word is a first name (grammeme Name): "Денис", "Вика"; not a
    capitalised adverb opening a sentence ("Наконец")."""
    return any("Name" in parse.tag for parse in russian_morphology().parse(word.casefold()))


@lru_cache(maxsize=8192)
def is_nominative_name(word: str) -> bool:
    """Whether the word is a first name in the nominative, the way a subject stands: "денис",
    "катя"; not "свете" (Света's dative) nor "марта" (a month's genitive first)."""
    parses = russian_morphology().parse(word.casefold())
    likeliest = parses[0].tag if parses else None
    return likeliest is not None and "Name" in likeliest and "nomn" in likeliest


@lru_cache(maxsize=8192)
def is_place_name(word: str) -> bool:
    """Whether the likeliest parse of the word is a place name (grammeme Geox): "Москве",
    "Перми"; not a company ("Сбере", "Т-Банке")."""
    return "Geox" in russian_morphology().parse(word.casefold())[0].tag


@lru_cache(maxsize=8192)
def is_dative_noun(word: str) -> bool:
    """Whether the likeliest parse of the word is a noun in the dative: "уроку", "каналу"
    (what "к 3-му" counts, not a day)."""
    tag = russian_morphology().parse(word.casefold())[0].tag
    return bool(tag.POS == "NOUN" and tag.case == "datv")
