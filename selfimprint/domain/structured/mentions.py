"""A person a message names (`PersonMention`: the name, who they are to the user, where it is
said) and the marks of a sentence both readers judge a name's place by: a sentence's start and
break, a speaker's colon, a comma before it, a capitalised Cyrillic word. Apart from `people`
so that `relations` and `russian_people`, which `people` imports, use them without a cycle."""

from __future__ import annotations

import re
from dataclasses import dataclass

CYRILLIC_CAPITALISED = re.compile(r"^[А-ЯЁ][а-яё]+$")
SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|\n)$")
SENTENCE_BREAK = re.compile(r"[.!?…\n]")


@dataclass(frozen=True)
class PersonMention:
    name: str  # dictionary form, as the user spells it ("Marta", "Марта")
    relation: str | None  # from the [relations] vocabulary of cues.toml
    start: int  # character span of the mention (the relation word included) in the text
    end: int
    # The relation was read by a reader of the whole message (adapters.relation_reader), not
    # from a relation word beside the name: the span holds the name alone.
    read: bool = False


# A name opening a line and followed by a colon labels who speaks ("Caroline: hey!"); one after
# a greeting is whom they speak to ("hey Mel!"): neither is someone the message is about.
SPEAKER = re.compile(r"^\s*:")
AFTER_COMMA = re.compile(r",\s*$")
