"""The English first names of the gazetteer (data/first_names_census.txt, data/names.toml) and
what it says of a word: the name it spells, in any case ("jake", "JAKE", "callums" -> "Jake",
"Callum"), and a name's possessive typed without its apostrophe ("jordans sign", "liams mum").
Its own module because both the English reader (`people`) and the relation words (`relations`)
ask it; `russian_names` is what the Russian dictionary says."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from selfimprint.domain.terms import FUNCTION_WORDS, NEGATIONS

# Capitalised at a sentence start, never a name ("My", "The", "Not").
SKIP = FUNCTION_WORDS | NEGATIONS


@dataclass(frozen=True)
class Gazetteer:
    names: frozenset[str]  # lowercase first names
    words: frozenset[str]  # names that are also everyday words ("will", "grace")

    def name_of(self, word: str, *, inside: bool, marked: bool = False) -> str | None:
        """The name `word` spells ("jake", "JAKE", "callums" -> "Jake", "Callum"), or None.

        `inside`: the word is capitalised inside a sentence, where even a name that is also a
        word ("Will", "Grace") is one; `marked`: an apostrophe's possessive follows it, so an
        "s" it ends with is the name's own ("carys's" is Carys's, not Cary's)."""
        key = word.casefold()
        if key in SKIP or len(key) < 2 or (key in self.words and not inside):
            return None
        if key not in self.names and word.islower() and key.endswith("s") and not marked:
            key = key[:-1]  # "callums girlfriend": a possessive typed without its apostrophe
            if len(key) < 4 or key in self.words:
                return None
        if key not in self.names or (key in self.words and not inside):
            return None
        return "-".join(part.capitalize() for part in key.split("-"))


@cache
def gazetteer() -> Gazetteer:
    data = resources.files("selfimprint.domain.structured").joinpath("data")
    census = data.joinpath("first_names_census.txt").read_text(encoding="utf-8").splitlines()
    written = tomllib.loads(data.joinpath("names.toml").read_text(encoding="utf-8"))
    names = {n.strip() for n in census if n.strip() and not n.startswith("#")}
    return Gazetteer(
        names=frozenset(names | set(written["extra"])), words=frozenset(written["words"])
    )


def possessive_of_a_name(key: str) -> bool:
    """A lowercase word read as a name that is a listed first name and an "s" ("jordans",
    "tylers"), when the word is no listed name itself ("marcos" is Marcos). Chat drops the
    apostrophe; a capitalised "Carys" or a titled "Dr Evans" is the name as typed."""
    names = gazetteer()
    return (
        len(key) >= 4 and key.endswith("s") and key[:-1] in names.names and key not in names.names
    )


def name_possessive_unmarked(word: str) -> bool:
    """ "liams", "mitchs": a first name's possessive typed without its apostrophe."""
    if not (word.islower() and word.endswith("s") and len(word) >= 5):
        return False
    names = gazetteer()
    return word[:-1] in names.names and word[:-1] not in names.words and word not in names.names
