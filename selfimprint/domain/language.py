"""Which language a message is written in, without a model (spec §6: context is returned in the
language of the most recent user message).

Two steps, both deterministic:

1. Script. Letters are counted per writing system, by word: a word belongs to the script most of
   its letters are in. A non-Latin script wins as soon as it holds a fair share of the words,
   because Latin words inside Russian or Greek text are nearly always names, brands or code
   ("купил iPhone 15 Pro Max" is Russian). URLs, e-mail addresses, @handles and words with digits
   are ignored altogether. Scripts used by one language map straight to it (Greek -> el, Hangul
   -> ko); Han with kana is Japanese.
2. Language within a shared script (Latin, Cyrillic, Arabic). Each profile is a small set of
   letters found only in that language plus its commonest function words; every word votes for
   the profiles it matches, and the best total wins. With no vote at all, the script's default
   language is returned ("ru" for Cyrillic, "en" for Latin): a one-word "Привет" is Russian.

Texts with no letters (emoji, numbers, empty) are "und" (ISO 639: undetermined).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Final, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

UNDETERMINED: Final = "und"


class Script(StrEnum):
    LATIN = "latin"
    CYRILLIC = "cyrillic"
    GREEK = "greek"
    ARABIC = "arabic"
    HEBREW = "hebrew"
    HAN = "han"
    KANA = "kana"
    HANGUL = "hangul"
    DEVANAGARI = "devanagari"
    THAI = "thai"
    ARMENIAN = "armenian"
    GEORGIAN = "georgian"


class LanguageConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Project choice: share of words a non-Latin script needs to beat Latin. Low on purpose, see
    # the module docstring (Latin words in other scripts are mostly names and brands).
    non_latin_min_word_share: Annotated[float, Field(gt=0.0, le=1.0)] = 0.25
    # Project choice: a word votes for a profile once per matching function word and once if it
    # contains a letter unique to that language; letters are the stronger hint in short texts.
    stop_word_vote: Annotated[float, Field(gt=0.0)] = 1.0
    unique_letter_vote: Annotated[float, Field(gt=0.0)] = 1.5


DEFAULT_LANGUAGE = LanguageConfig()


class _Profile(NamedTuple):
    code: str
    letters: frozenset[str]
    stop_words: frozenset[str]


def _profile(code: str, letters: str, stop_words: str) -> _Profile:
    return _Profile(code, frozenset(letters), frozenset(stop_words.split()))


# Per shared script: the default language first, then the others. Function words are the
# commonest short words of each language, chosen to overlap little with the neighbours.
_PROFILES: Final[Mapping[Script, tuple[_Profile, ...]]] = {
    Script.LATIN: (
        _profile(
            "en",
            "",
            "the and is are was were i you he she we they it of to in that this with for not "
            "have has had my your at be but what will would can just my me do don't i'm it's "
            "a an as on or if so",
        ),
        _profile(
            "de",
            "äöüß",
            "der die das und ist nicht ich du er sie wir ihr es ein eine einen mit auf für "
            "von zu den dem des auch sich mich mir wie aber noch bin habe hat sind war",
        ),
        _profile(
            "fr",
            "àâçèêëîïôœùûÿ",
            "le la les et est je tu il elle nous vous ils un une des du au aux ce cette pas "
            "pour dans avec sur mais qui que c'est j'ai suis très",
        ),
        _profile(
            "es",
            "ñ¿¡",
            "el la los las y es yo tú él ella nosotros un una unos del al que en con por "
            "para pero muy está estoy soy tengo como más",
        ),
        _profile(
            "it",
            "ìò",
            "il lo gli la le e è io tu lui lei noi un una uno del della che non per con "
            "sono ho molto anche ma come questo",
        ),
        _profile(
            "pt",
            "ãõ",
            "o a os as e é eu tu ele ela nós um uma do da dos das que não em com por para "
            "mas muito estou sou tenho você",
        ),
        _profile(
            "nl",
            "ĳ",
            "de het een en is ik jij je hij zij wij niet van op met voor maar ook dat die "
            "zijn heb heeft was",
        ),
        _profile(
            "pl",
            "ąćęłńśźż",
            "i w z na nie się jest to że do jak ale mam jestem czy tak już mnie",
        ),
    ),
    Script.CYRILLIC: (
        _profile(
            "ru",
            "ыэъё",
            "и в не на я что он она они мы вы с как это но по к у же бы был была было "
            "мне меня его её ещё уже только очень если когда где так тоже до от да из ты нет "
            "много теперь те",
        ),
        _profile(
            "uk",
            "іїєґ",
            "і й та в у не на я що він вона вони ми ви з як це але по до же був була було "
            "мені мене його її ще вже тільки дуже якщо коли де так теж",
        ),
        _profile(
            "be",
            "ўі",
            "і ў не на я што ён яна яны мы вы з як гэта але па да ўжо толькі вельмі калі",
        ),
        _profile(
            "bg",
            "",
            "и в не на аз че той тя те ние вие с като това но по до съм си е са беше много",
        ),
        _profile("sr", "ђјљњћџ", "и у не на ја да је са као али то сам смо"),
        _profile("kk", "әғқңөұүһ", "және мен бұл ол біз сіз емес бар жоқ үшін"),
    ),
    Script.ARABIC: (
        _profile("ar", "ةى", "في من على إلى أن هذا هذه التي الذي كان عن مع"),
        _profile("fa", "پچژگ", "در از به که این است را با برای آن من"),
        _profile("ur", "ٹڈڑںھے", "میں ہے کے کی سے اور کو یہ نہیں ہیں"),
    ),
}

# Scripts written (in practice) by one language.
_SINGLE_LANGUAGE: Final[Mapping[Script, str]] = {
    Script.GREEK: "el",
    Script.HEBREW: "he",
    Script.HANGUL: "ko",
    Script.DEVANAGARI: "hi",
    Script.THAI: "th",
    Script.ARMENIAN: "hy",
    Script.GEORGIAN: "ka",
    Script.KANA: "ja",
    Script.HAN: "zh",
}

# (first, last) code point of each script's main blocks.
_BLOCKS: Final[tuple[tuple[int, int, Script], ...]] = (
    (0x0041, 0x024F, Script.LATIN),
    (0x1E00, 0x1EFF, Script.LATIN),
    (0x0370, 0x03FF, Script.GREEK),
    (0x1F00, 0x1FFF, Script.GREEK),
    (0x0400, 0x052F, Script.CYRILLIC),
    (0x0530, 0x058F, Script.ARMENIAN),
    (0x0590, 0x05FF, Script.HEBREW),
    (0x0600, 0x06FF, Script.ARABIC),
    (0x0750, 0x077F, Script.ARABIC),
    (0x0900, 0x097F, Script.DEVANAGARI),
    (0x0E00, 0x0E7F, Script.THAI),
    (0x10A0, 0x10FF, Script.GEORGIAN),
    (0x1100, 0x11FF, Script.HANGUL),
    (0x3040, 0x30FF, Script.KANA),
    (0x3400, 0x4DBF, Script.HAN),
    (0x4E00, 0x9FFF, Script.HAN),
    (0xAC00, 0xD7AF, Script.HANGUL),
)

_IGNORED = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+|@\w+|\S*\d\S*")
# Words keep inner apostrophes ("don't", "c'est") and Spanish opening marks ("¿qué"), which are a
# profile's letters; CJK runs count as one word each.
_WORD = re.compile(r"[¿¡]?\w+(?:['’]\w+)*")


def script_of(char: str) -> Script | None:
    """The writing system of one letter; None for digits, punctuation and unknown scripts."""
    if not char.isalpha():
        return None
    point = ord(char)
    for first, last, script in _BLOCKS:
        if first <= point <= last:
            return script
    return None


def _word_script(word: str) -> Script | None:
    scripts = Counter(s for s in map(script_of, word) if s is not None)
    if not scripts:
        return None
    if Script.KANA in scripts:
        # Japanese words mix kana and kanji; the kana make them Japanese.
        return Script.KANA
    return min(scripts, key=lambda s: (-scripts[s], s.value))


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text).casefold()
    return [w.replace("’", "'") for w in _WORD.findall(_IGNORED.sub(" ", text))]


def _dominant_script(
    words_by_script: Mapping[Script, list[str]], config: LanguageConfig
) -> Script | None:
    total = sum(len(words) for words in words_by_script.values())
    if total == 0:
        return None
    non_latin = [
        (len(words), script)
        for script, words in words_by_script.items()
        if script is not Script.LATIN
    ]
    if non_latin:
        count, script = max(non_latin, key=lambda pair: (pair[0], pair[1].value))
        if count / total >= config.non_latin_min_word_share:
            return script
    return max(words_by_script, key=lambda s: (len(words_by_script[s]), s.value))


def _vote(profiles: tuple[_Profile, ...], words: list[str], config: LanguageConfig) -> str:
    scores = dict.fromkeys((p.code for p in profiles), 0.0)
    for word in words:
        for profile in profiles:
            if word in profile.stop_words:
                scores[profile.code] += config.stop_word_vote
            if profile.letters and not profile.letters.isdisjoint(word):
                scores[profile.code] += config.unique_letter_vote
    # Ties go to the earlier profile: the script's default language.
    return max(profiles, key=lambda p: scores[p.code]).code


def detect_language(text: str, config: LanguageConfig = DEFAULT_LANGUAGE) -> str:
    """ISO 639-1 code of the text's language ("en", "ru", "uk", "de", ...), or "und"."""
    words_by_script: dict[Script, list[str]] = {}
    for word in _words(text):
        script = _word_script(word)
        if script is not None:
            words_by_script.setdefault(script, []).append(word)
    script = _dominant_script(words_by_script, config)
    if script is None:
        return UNDETERMINED
    if script is Script.HAN and Script.KANA in words_by_script:
        return "ja"
    if script in _SINGLE_LANGUAGE:
        return _SINGLE_LANGUAGE[script]
    return _vote(_PROFILES[script], words_by_script[script], config)
