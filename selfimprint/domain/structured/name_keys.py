"""One person's name however it is written (issue 34): in Cyrillic or Latin letters ("Аня",
"Anya", "Ania", "Anja"), declined ("с Аней", "Аню": Аня), with the Latin spellings of one
Russian name folded together ("Yulia", "Julia", "Юлия"; "Dmitri", "Dmitry", "Дмитрий").

A name's key is its dictionary form spelled in Latin letters, then folded where romanisations
of one name differ. Two mentions name the same person when their keys are equal; the person
memories of the graph are linked by it (`domain.ingestion.edges.link_people`). Equal keys can
still be two people of one name: the key says the name is the same, not the person.
"""

from __future__ import annotations

import re
from functools import lru_cache

from selfimprint.domain.structured.morphology import russian_morphology

_CYRILLIC_TO_LATIN = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
    "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
    "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts",
    "ч": "ch", "ш": "sh", "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya",
}  # fmt: skip

# Where romanisations of one Russian name part ways, in order: "Xenia" / "Kseniya", "Khristina"
# / "Hristina", "Anja" / "Anya", "Yuliya" / "Yulia" / "Julia", "Seryozha" / "Serezha",
# "Yelena" / "Elena", "Dmitri" / "Dmitriy" / "Dmitry", "Alexei" / "Aleksey".
_FOLDS = (
    (re.compile(r"x"), "ks"),
    (re.compile(r"kh"), "h"),
    (re.compile(r"j"), "y"),
    (re.compile(r"iya"), "ya"),
    (re.compile(r"i([aeou])"), r"y\1"),
    (re.compile(r"yo"), "e"),
    (re.compile(r"^ye"), "e"),
    (re.compile(r"(?:iy|ij|i|y)$"), "y"),
    (re.compile(r"(?:ei|ej)$"), "ey"),
    (re.compile(r"(.)\1+"), r"\1"),
)
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")


def name_key(name: str) -> str:
    """The key of a name as written: Latin letters, romanisations folded ("Аня", "Anya",
    "Ania" -> "anya")."""
    latin = "".join(_CYRILLIC_TO_LATIN.get(c, c) for c in name.casefold())
    key = re.sub(r"[^a-z]", "", latin)
    for pattern, replacement in _FOLDS:
        key = pattern.sub(replacement, key)
    return key


@lru_cache(maxsize=8192)
def name_keys(word: str) -> frozenset[str]:
    """The keys of a word that may be a declined name: its own, and for Cyrillic the keys of
    the first names the dictionary reads it as ("Аню", "Аней" -> Аня)."""
    keys = {name_key(word)}
    if _CYRILLIC.search(word):
        for parse in russian_morphology().parse(word.casefold()):
            if "Name" in parse.tag:
                keys.add(name_key(str(parse.normal_form)))
    keys.discard("")
    return frozenset(keys)


def names_in(text: str) -> frozenset[str]:
    """The keys of every word of `text`, in any case ("Мою сестру аню" -> moyu, sestru, anya,
    anyu): what a person memory's words are matched against, whole words only."""
    return frozenset(key for word in _WORD.findall(text) for key in name_keys(word))
