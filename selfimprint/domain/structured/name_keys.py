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
from selfimprint.domain.terms import stem

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


def full_name_keys(name: str) -> frozenset[str]:
    """The keys of every word of a name ("Нина Степановна", "Anya")."""
    return frozenset(key for word in name.split() for key in name_keys(word))


@lru_cache(maxsize=8192)
def proper_keys(word: str) -> frozenset[str]:
    """The keys of a word that may be a proper noun in any case: its own, without an English
    possessive ("Pelevin's"), and for Cyrillic every dictionary form ("Теслу" -> Тесла,
    "Казани" -> Казань): what one place, brand or person is called in either script."""
    plain = re.sub(r"['’]s$", "", word)
    keys = {name_key(plain)}
    if _CYRILLIC.search(plain):
        keys |= {name_key(str(p.normal_form)) for p in russian_morphology().parse(plain.casefold())}
    keys.discard("")
    return frozenset(keys)


def same_proper_noun(a: str, b: str) -> bool:
    """Whether two words name one place, brand or person: a shared key (`proper_keys`), or a
    Cyrillic word declined past what the dictionary knows ("Теслу": Тесла is not in it) whose
    stem, in Latin letters and at least four long, begins the other's key, which runs at most
    two letters past it ("tesl" / "tesla")."""
    if proper_keys(a) & proper_keys(b):
        return True
    for cyrillic, latin in ((a, b), (b, a)):
        if _CYRILLIC.search(cyrillic) and not _CYRILLIC.search(latin):
            root = name_key(stem(cyrillic.casefold()))
            if len(root) >= 4 and any(
                key.startswith(root) and len(key) <= len(root) + 2 for key in proper_keys(latin)
            ):
                return True
    return False


def names_in(text: str) -> frozenset[str]:
    """The keys of every word of `text`, in any case ("Мою сестру аню" -> moyu, sestru, anya,
    anyu): what a person memory's words are matched against, whole words only."""
    return frozenset(key for word in _WORD.findall(text) for key in name_keys(word))
