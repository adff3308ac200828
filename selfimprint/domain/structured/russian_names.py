"""What pymorphy2's dictionary (through natasha) says of a Russian word as a person's name: a
first name in its dictionary form, typed in lowercase, a surname, a patronymic, a possessive
adjective of a name ("Олина мама"), and whether a case agrees. `russian_people` reads Russian
messages with these for `people.find_people`; the English readings stay in `people`."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from selfimprint.domain.structured.tokens import CAPITALISED, Token

PREPOSITIONS_RU = frozenset("с со к ко у при для от о об про по за без".split())


@cache
def russian_tools() -> tuple[Any, Any, Any, Any]:
    # Loaded once per process (~1 s, ~60 MB): navec embeddings, slovnet NER, pymorphy2 dicts.
    from natasha import Doc, MorphVocab, NewsEmbedding, NewsNERTagger, Segmenter

    return Segmenter(), NewsNERTagger(NewsEmbedding()), MorphVocab(), Doc


# The cases a preposition governs: the name after it is read in one of them ("из-за амира" is
# Амир's genitive, not Амира; "с бахой", "к Косте").
GOVERNS = {
    **dict.fromkeys(
        ("у", "для", "без", "от", "до", "из", "из-за", "около", "возле", "после", "кроме"),
        frozenset({"gent"}),
    ),
    **dict.fromkeys(("к", "ко", "по"), frozenset({"datv"})),
    **dict.fromkeys(("с", "со", "над", "перед", "между"), frozenset({"ablt"})),
    **dict.fromkeys(("про", "через"), frozenset({"accs"})),
    **dict.fromkeys(("о", "об", "при"), frozenset({"loct"})),
}  # fmt: skip


def governed(parses: list[Any], before: str) -> list[Any]:
    """The readings in a case the preposition before the word governs; all of them when none
    is, or no preposition stands there."""
    cases = GOVERNS.get(before.casefold().replace("ё", "е"))
    kept = [p for p in parses if cases and p.tag.case in cases]
    return kept or parses


def first_name(word: str, morph: Any, before: str = "", initial: bool = False) -> str | None:
    """The dictionary form of a first name, or None when the word is not one; `before` is the
    word before it (a preposition picks the case); `initial`: the word opens a sentence, where
    a name is most often its subject, typed in its dictionary form ("Камила однокурсница моя",
    not Камил's genitive; "одноклассника Вадима" is Вадим's)."""
    # A person named by a first name is one: a plural reading is another word's ("Колян" is
    # no genitive plural of "Коляна").
    parses = [
        p for p in morph.parse(word) if ("Name" in p.tag or "Surn" in p.tag) and "plur" not in p.tag
    ]
    if not parses:
        return None
    # An indeclinable reading ending in "-е" ("Алине", "Кристине" as foreign names) is listed
    # once per case and would outweigh the dative it is far less often than: Алина's. ("Гоги"
    # and "Дато" are such names.)
    if word.casefold().endswith("е"):
        parses = [p for p in parses if "Fixd" not in p.tag] or parses
    parses = governed(parses, before)
    typed = [p for p in parses if str(p.normal_form) == word.casefold()]
    if typed and initial:
        return word.capitalize()  # typed in its dictionary form ("Камила", not Камил's genitive)
    # The text reaches here with ё written as е: "Алена" is Алёна as written, not Ален's
    # genitive (the dictionary's likelier reading), when a name with ё spells it so.
    as_written = [
        p
        for p in parses
        if "ё" in str(p.normal_form)
        and str(p.normal_form).replace("ё", "е") == word.casefold().replace("ё", "е")
    ]
    if before.casefold() not in GOVERNS and any(
        "Surn" in p.tag and {"femn", "nomn"} <= set(p.tag.grammemes) for p in parses
    ):
        # A woman's surname as typed: the dictionary's base form is the man's ("Доктор Соколова
        # сказала": Соколова, not Соколов; "у Гусейнова" is his).
        return word.capitalize()
    if as_written:
        return str(max(as_written, key=lambda p: p.score).normal_form).capitalize()
    weights: dict[str, float] = {}
    for parse in parses:
        form = str(parse.normal_form)
        weights[form] = weights.get(form, 0.0) + float(parse.score)
    # Of equal readings a "-я" name: "Вите", "Гале", "Коле" are Витя, Галя, Коля, far likelier
    # in chat than Вит or Вита, Гала, Кола.
    name = max(weights, key=lambda f: (round(weights[f], 6), f.endswith("я")))
    if name.endswith("а") and name[:-1] + "я" in weights:
        name = name[:-1] + "я"
    return name.capitalize()


def common_noun_weight(parses: list[Any]) -> float:
    return sum(
        float(p.score)
        for p in parses
        if p.tag.POS == "NOUN" and not {"Name", "Surn", "Patr"} & set(p.tag.grammemes)
    )


def name_weight(names: list[Any]) -> float:
    """How much of a word's readings name someone, an indeclinable name counted once: the
    dictionary lists it once per case ("хату": Хату in six cases, 0.07 each, against хата's
    accusative, 0.2)."""
    fixed: dict[str, float] = {}
    total = 0.0
    for parse in names:
        if "Fixd" in parse.tag:
            form = str(parse.normal_form)
            fixed[form] = max(fixed.get(form, 0.0), float(parse.score))
        else:
            total += float(parse.score)
    return total + sum(fixed.values())


BEFORE_A_VERB = frozenset("сам сама тоже уже опять снова вчера сегодня наконец даже не".split())


def verb_follows(tokens: list[Token], at: int, morph: Any) -> bool:
    """Whether a verb comes next (a few adverbs between): the name before it is its subject, in
    its dictionary form ("Тима сам спросил" is Тима, not Тим's genitive)."""
    while at < len(tokens) and tokens[at].text.casefold() in BEFORE_A_VERB:
        at += 1
    if at >= len(tokens):
        return False
    verb = morph.parse(tokens[at].text.casefold())[0].tag
    return "VERB" in verb and "plur" not in verb  # "Рината вызывают": their object, not subject


def more_a_place(word: str, morph: Any, in_or_from: bool) -> bool:
    """Whether the dictionary reads a word as a place more than as a name: "в Вене", "из
    Питера", "на Дону", "в Коле" (a place first after "в" or "из"); not "женат на Лене"."""
    parses = morph.parse(word.casefold())
    if in_or_from and parses and "Geox" in parses[0].tag:
        return True
    place = float(sum(p.score for p in parses if "Geox" in p.tag))
    return place > float(sum(p.score for p in parses if "Name" in p.tag))


def same_case(name: str, word: str, morph: Any) -> bool:
    """Whether a relation word after a name can stand in the name's case, as an apposition
    does ("Гена начальник", "у вадика, бригадира"); a name the dictionary gives no case agrees."""
    named = {
        p.tag.case
        for p in morph.parse(name.casefold())
        if "Name" in p.tag and "sing" in p.tag and p.tag.case  # "Валеры" is one Валера's
    }
    if not named and diminutive_of_a_name(name, morph) == name.capitalize():
        named = {"nomn"}  # "Максимка деда не отпускает": a "-ка" diminutive in its nominative
    if not morph.word_is_known(word.casefold()):
        return True  # "Паша тимлид": the dictionary's cases of a word it lacks are guesses
    said = {p.tag.case for p in morph.parse(word.casefold()) if p.tag.case}
    return not named or not said or bool(named & said)


# Lowercase words pymorphy2 reads as first names that are more often everyday words.
RU_NOT_NAMES = frozenset({"роза", "лев", "мила", "вера", "слава", "роман", "любовь", "август"})

# ... and the forms of a name the dictionary reads more often as a word, which chat about one's
# life almost never means: "гена", "гену", "гене" (a gene's cases; of the 119 in the persona
# corpus, every one is Гена).
RU_NAMES_OVER_WORDS = {"гена": "Гена", "гену": "Гена", "гене": "Гена", "геной": "Гена"}


# Prepositions a place follows far more often than a person: "в астану", "из караганды".
PLACE_PREPOSITIONS = frozenset({"в", "во", "на", "из", "до"})


def lowercase_first_name(word: str, morph: Any, before: str = "") -> str | None:
    """A first name typed in lowercase ("с олей", "даник", "камила"; "мишка" no: a teddy bear
    first), or None. The dictionary's readings of the word as a name must weigh at least half
    of all its readings (a name's case forms often share their ending with a noun's: "иру" is
    Ира's or an "ир"'s); an unknown word never counts (a typo is guessed a name by its ending),
    nor a word read as a place or a verb ("в астану", "валит")."""
    if word in RU_NAMES_OVER_WORDS:  # "мутация в гене" is a gene's
        return None if before.casefold() in ("в", "во") else RU_NAMES_OVER_WORDS[word]
    if len(word) < 3 or not morph.word_is_known(word):
        return None
    parses = morph.parse(word)
    if any(p.tag.POS in VERBS and p.score >= 0.25 for p in parses):
        return None
    names = [p for p in parses if "Name" in p.tag]
    place = sum(float(p.score) for p in parses if "Geox" in p.tag)
    if place >= 0.25 and (
        place > sum(float(p.score) for p in names) or before.casefold() in PLACE_PREPOSITIONS
    ):
        # "в астану" is the city; "к артему", "с артёмом" are Артём, whose readings as a town
        # weigh no more than those as a man's name.
        return None
    if sum(float(p.score) for p in names) < RU_NAME_SHARE:
        return None
    if common_noun_weight(parses) > name_weight(names):
        return None  # "хату": хата's accusative, not the indeclinable Хату in six cases
    declined = [p for p in names if "Fixd" not in p.tag] or names  # "кристине": Кристина's
    singular = governed([p for p in declined if "plur" not in p.tag], before)
    if not singular:
        # Read only as a plural ("даник": "Даника"'s genitive plural, the same as the animate
        # accusative): the dictionary lacks the name typed in its nominative; a plural in
        # another case is no name ("на крестинах").
        return word.capitalize() if all(p.tag.case in GENITIVE_LIKE for p in declined) else None
    weights: dict[str, float] = {}
    for parse in singular:
        form = str(parse.normal_form)
        weights[form] = weights.get(form, 0.0) + float(parse.score)
    # Typed in its dictionary form: that is the name. Else the heaviest reading; of equal ones a
    # feminine "-а/-я" name ("алину": Алина, not Алин).
    after_preposition = before.casefold().replace("ё", "е") in GOVERNS
    name = (
        word
        if word in weights and not after_preposition
        else max(weights, key=lambda f: (weights[f], f[-1] in "ая"))
    )
    if name in RU_NOT_NAMES:
        return None
    return name.capitalize()


# How a Russian surname ends in its cases (-ов, -ева, -ину, -ым): the dictionary guesses a
# surname for many an unknown word ("акум", "медлайн"), never with these endings alone.
SURNAME_ENDING = re.compile(r"(?:[оеё]в|[иы]н)(?:а|у|ым|ой|ом|ых|е)?$")


def lowercase_surname(word: str, morph: Any, following: str = "", before: str = "") -> str | None:
    """A surname typed in lowercase ("шилов на претензию молчит", "у шилова"): the dictionary
    reads the word as a surname at least as often as anything else; its masculine form, but a
    woman's where a verb in the feminine past follows it ("зайцева сказала": Зайцева, not
    Зайцев's genitive), and not after a preposition ("у шилова": Шилов's)."""
    if len(word) < 5 or not morph.word_is_known(word) or not SURNAME_ENDING.search(word):
        return None
    parses = morph.parse(word)
    possessive = re.match(r"^(\w{2,})[иы]н(?:а|у|ой|ым|ом|ых|е|о|ы)?$", word)
    if possessive and any(
        "anim" in p.tag and "NOUN" in p.tag
        for end in "ая"
        for p in morph.parse(possessive.group(1) + end)
        if morph.word_is_known(possessive.group(1) + end)
    ):
        return None  # "батин брат", "мамин": dad's, mum's (a possessive adjective)
    surnames = [p for p in parses if "Surn" in p.tag and "plur" not in p.tag]
    if sum(float(p.score) for p in surnames) < RU_NAME_SHARE:
        return None
    hers = (
        (
            before.casefold() not in PREPOSITIONS_RU  # "у шилова": his genitive
            and any("femn" in p.tag and p.tag.case == "nomn" for p in surnames)
        )
        and any(
            "VERB" in v.tag and "past" in v.tag and "femn" in v.tag
            for v in morph.parse(following.casefold())[:1]
        )
    )
    return word.capitalize() if hers else str(surnames[0].normal_form).capitalize()


def name_before_its_verb(word: str, tokens: list[Token], i: int, morph: Any) -> str | None:
    """A lowercase first name the dictionary reads more often as a noun ("гена": a gene's
    genitive), typed in its dictionary form right before a verb of the third person singular,
    nothing between them: its subject ("гена говорит"; not "не пил. горжусь")."""
    if len(word) < 3 or not morph.word_is_known(word) or word in RU_NOT_NAMES:
        return None
    if i + 1 >= len(tokens) or not tokens[i + 1].start - tokens[i].end == 1:
        return None
    if i and tokens[i - 1].text.casefold() in PREPOSITIONS_RU:
        return None  # "с августа поднимает": governed, no subject
    verb = morph.parse(tokens[i + 1].text.casefold())[0].tag
    said_of_one = "VERB" in verb and "sing" in verb and ("3per" in verb or "past" in verb)
    named = any(
        "Name" in p.tag and p.tag.case == "nomn" and p.normal_form == word
        for p in morph.parse(word)
    )
    return word.capitalize() if said_of_one and named else None


VERBS = frozenset({"VERB", "INFN", "PRTF", "PRTS", "GRND"})


GENITIVE_LIKE = frozenset({"gent", "accs"})


# The share of a lowercase word's dictionary readings that must be names (see above).
RU_NAME_SHARE = 0.5


OWNER_ENDINGS = re.compile(
    r"^(\w{2,}?)(?:ин|ина|ину|иной|ины|иных|иного|иному|ином|ын|ына|ыну|ыной)$"
)

# The same possessive in the endings a noun's case and gender call for that read as other words
# too ("Серёгиным" a surname, "Димино", "Анину"): taken only before a noun that agrees with them.
AGREEING_OWNER = re.compile(r"^(\w{2,}?)[иы]н(|а|у|ой|ым|ом|о|ы|ых)$")

# The gender (or the plural) and case each ending of a possessive adjective is said in.
POSSESSIVE_FORMS: dict[str, frozenset[tuple[str, str]]] = {
    "": frozenset({("masc", "nomn"), ("masc", "accs")}),
    "а": frozenset({("masc", "gent"), ("neut", "gent"), ("femn", "nomn"), ("masc", "accs")}),
    "у": frozenset({("masc", "datv"), ("neut", "datv"), ("femn", "accs")}),
    "ой": frozenset({("femn", c) for c in ("gent", "datv", "ablt", "loct")}),
    "ым": frozenset({("masc", "ablt"), ("neut", "ablt"), ("plur", "datv")}),
    "ом": frozenset({("masc", "loct"), ("neut", "loct")}),
    "о": frozenset({("neut", "nomn"), ("neut", "accs")}),
    "ы": frozenset({("plur", "nomn"), ("plur", "accs")}),
    "ых": frozenset({("plur", "gent"), ("plur", "loct"), ("plur", "accs")}),
    "ого": frozenset({("masc", "gent"), ("neut", "gent"), ("masc", "accs")}),
    "ому": frozenset({("masc", "datv"), ("neut", "datv")}),
}


def agrees_with_noun(ending: str, noun: str, morph: Any) -> bool:
    """Whether a common noun can stand in the gender or number and the case a possessive's
    ending says ("Анину мечту", "Серёгиным племянником"; not "у Ларионова отпуск")."""
    allowed = POSSESSIVE_FORMS.get(ending, frozenset())
    parses = morph.parse(noun.casefold())
    if not parses or parses[0].tag.POS != "NOUN":
        return False  # "машину в", "Даши пробный": no noun follows
    for parse in parses:
        tag = parse.tag
        if tag.POS != "NOUN" or {"Name", "Surn", "Patr"} & set(tag.grammemes):
            continue
        # A noun of common gender ("сирота") is tagged "ms-f", no gender of its own.
        genders = {"masc", "femn"} if "ms-f" in tag.grammemes else {str(tag.gender)}
        said = {"plur"} if tag.number == "plur" else genders
        case = str(tag.case)
        if "masc" in said and case == "accs" and "plur" not in said:
            # A masculine accusative is the genitive's form for a living thing ("Серёгина
            # брата"), the nominative's for anything else ("Серёгин гараж").
            animate = "anim" in tag.grammemes
            if (ending in ("а", "ого")) != animate:
                said = said - {"masc"}
        if any((g, case) in allowed for g in said):
            return True
    return False


def owner_before_noun(word: str, noun: str, morph: Any) -> str | None:
    """The name a possessive adjective is made of when a common noun it agrees with follows it,
    however else the dictionary reads the word ("Серёгиным племянником" -> Серёга, "Димино
    банкротство" -> Дима, "Анину мечту" -> Аня); a declined name of its own ("Марину",
    "Полину") stays that name."""
    match = AGREEING_OWNER.match(word.casefold())
    if match is None or not agrees_with_noun(match.group(2), noun, morph):
        return None
    parses = morph.parse(word.casefold())
    if any(
        "Name" in p.tag and "plur" not in p.tag and "Fixd" not in p.tag and p.score >= 0.3
        for p in parses
    ):
        return None
    if morph.word_is_known(word.casefold()) and (
        not any("Poss" in p.tag or "Surn" in p.tag for p in parses) or common_noun(parses)
    ):
        return None  # "машину", "тишины": other words the dictionary holds
    return base_name(match.group(1), morph)


def common_noun(parses: list[Any]) -> bool:
    """Whether the dictionary reads a word as a common noun at least 0.3 of the time."""
    return any(
        p.tag.POS == "NOUN"
        and not {"Name", "Surn", "Patr"} & set(p.tag.grammemes)
        and p.score >= 0.3
        for p in parses
    )


def base_name(stem: str, morph: Any) -> str | None:
    """The first name a possessive's stem is made of ("серёгин" Серёга's, "олин" Оля's), of two
    the "-а" one, as `owner` reads it ("генин": Гена's, not Геня's), and only a name the
    dictionary holds: it guesses names for any word by its ending."""
    for ending in ("а", "я"):
        base = stem + ending
        if not morph.word_is_known(base):
            continue  # the dictionary guesses "геня", "людя" names by their ending
        for p in morph.parse(base):
            # The text is read with "ё" as "е": "Серегиным" is Серёга's.
            form = str(p.normal_form)
            if "Name" in p.tag and "sing" in p.tag and p.tag.case == "nomn":
                if form.replace("ё", "е") == base.replace("ё", "е"):
                    return form.capitalize()
    return None


# A diminutive's case ending after its "-к-" ("Полинке", "Артёмку", "Варькой", "Светки"):
# the name it declines is the "-ка" form.
DIMINUTIVE_CASE = re.compile(r"^(\w{2,}[кч])(?:е|и|у|ой|ою)$")


def diminutive_nominative(word: str, morph: Any) -> str | None:
    """The dictionary form of a capitalised diminutive the dictionary does not hold, from its
    ending ("Полинке", "Ниночке" -> Полинка, Ниночка), or None."""
    if morph.word_is_known(word.casefold()):
        return None
    match = DIMINUTIVE_CASE.match(word)
    return f"{match.group(1)}а" if match else None


# A name's "-к-" diminutive in any case: "полинка", "оксанку", "варькой", "артёмка".
NAME_DIMINUTIVE = re.compile(r"^(\w{2,}?)(ь?)к(?:а|и|е|у|ой|ою)$")


def diminutive_of_a_name(word: str, morph: Any) -> str | None:
    """A word the dictionary does not hold that is a known first name's "-к-" diminutive, in
    its "-ка" form ("полинка", "Полинке" -> Полинка, "оксанку" -> Оксанка, "варькой" -> Варька,
    "артёмке" -> Артёмка), or None: the name it is made of (Полина, Оксана, Варя, Артём) must
    be a first name in the dictionary, so "зарплатку" or a typo is no one."""
    folded = word.casefold()
    match = NAME_DIMINUTIVE.match(folded)
    if match is None or morph.word_is_known(folded):
        return None
    if any(morph.word_is_known(folded[:k] + "ь" + folded[k:]) for k in range(2, len(folded))):
        return None  # "валерянка": "валерьянка" with its soft sign dropped, no one's name
    stem, soft = match.groups()
    for base in (stem + "а", stem + "я", stem):
        if morph.word_is_known(base) and any(
            "Name" in p.tag and p.tag.case == "nomn" and "sing" in p.tag and p.normal_form == base
            for p in morph.parse(base)
        ):
            return f"{stem}{soft}ка".capitalize()
    return None


# A name's "-ха" diminutive in any case: "илюха", "илюху", "натахой", "колюхе", "миха".
NAME_HA = re.compile(r"^(\w{2,}?)х(?:а|и|е|у|ой|ою)$")


def ha_diminutive(word: str, morph: Any) -> str | None:
    """A word the dictionary does not hold that is a known first name's "-ха" diminutive, in
    its "-ха" form ("илюху" -> Илюха, of Илья; "колюхе" -> Колюха, of Коля; "натахой" ->
    Натаха, of Наташа; "миха", of Миша), or None: the name it is made of must be a first name
    in the dictionary, so "непруха" or a typo is no one. Chat's everyday way to name a friend or
    a son ("илюха младший мой"); the dictionary holds only a few ("андрюха", "лёха")."""
    folded = word.casefold()
    match = NAME_HA.match(folded)
    if match is None or morph.word_is_known(folded):
        return None
    before = match.group(1)
    stem = before[:-1] if before[-1] in "юуёе" else before
    for base in (stem + "ья", stem + "я", stem + "а", stem + "ей", stem, before + "ша"):
        if morph.word_is_known(base) and any(
            "Name" in p.tag
            and p.tag.case == "nomn"
            and "sing" in p.tag
            and str(p.normal_form).replace("ё", "е") == base.replace("ё", "е")
            for p in morph.parse(base)
        ):
            return f"{before}ха".capitalize()
    return None


def owner(word: str, morph: Any, noun: str = "") -> str | None:
    """The name a possessive adjective is made of ("Олина" -> "Оля", "серёгина" -> "Серёга",
    "Ленкину" -> "Ленка"), or None. A word the dictionary reads as a name itself ("Марина") is
    that name, and one it reads as another word ("тишина") is no possessive. The dictionary
    lacks most possessives of diminutives ("ленкину", "иркиного"): a word it does not know is
    read by its ending, and its base needs only to be read as a name at all, but where the base
    is a word it does not know either, only before a `noun` it agrees with ("тамунина мама";
    not "кофемашина бесплатная", whose "base" the dictionary guesses a name by its ending)."""
    match = OWNER_ENDINGS.match(word.casefold())
    if match is None:
        return None
    known = morph.word_is_known(word.casefold())
    if known:
        best = morph.parse(word)[0]
        if "Name" in best.tag or not (best.tag.POS == "ADJF" or "Surn" in best.tag):
            return None
    for ending in ("а", "я"):
        base = match.group(1) + ending
        parses = morph.parse(base)
        if known:
            names = [str(p.normal_form) for p in parses[:1] if "Name" in p.tag and p.score >= 0.5]
        else:
            names = [str(p.normal_form) for p in parses if "Name" in p.tag and "sing" in p.tag]
            guessed = not morph.word_is_known(base)
            case_ending = word.casefold()[len(match.group(1)) + 2 :]
            if names and guessed and not (noun and agrees_with_noun(case_ending, noun, morph)):
                continue
        if names:  # the base itself when it is a name's nominative ("айкин": Айка, not Айк)
            return (base if base in names else names[0]).capitalize()
    return None


def patronymic(word: str, morph: Any) -> str | None:
    """A patronymic's nominative ("Викторовны", "петровной", "НИКОЛАЕВИЧ" -> "Викторовна",
    "Петровна", "Николаевич")."""
    if not (CAPITALISED.match(word) or word.islower() or (word.isupper() and len(word) > 2)):
        return None
    for parse in morph.parse(word.casefold()):
        if "Patr" in parse.tag:
            nominative = parse.inflect({"Nom"})  # natasha takes UD feature names
            return str((nominative or parse).word).capitalize()
    return None


def womans_first_name(word: str, morph: Any) -> str | None:
    """A first name read as a woman's, before a woman's patronymic ("Евгения Петровна", not
    Евгений's genitive; "Галине Васильевне": Галина)."""
    for parse in morph.parse(word.casefold()):
        if "Name" in parse.tag and "femn" in parse.tag and "sing" in parse.tag:
            return str(parse.normal_form).capitalize()
    return None


def standalone_patronymic(tokens: list[Token], i: int, word: str, morph: Any) -> str | None:
    """A patronymic that stands alone as a man's name ("Михалыч", "Петрович"): the one right
    after a first name is that name's ("Ирина Михайловна")."""
    reading = patronymic(word.capitalize() if word.isupper() else word, morph)
    if reading is None or not reading.endswith("ч"):
        return None  # "Михайловна" alone is no way to call a woman
    previous = tokens[i - 1].text if i else ""
    if CAPITALISED.match(previous) and first_name(previous, morph) is not None:
        return None
    return reading


def cases_agree(relation_word: str, name: str, morph: Any) -> bool:
    """Whether a relation word right before a name can stand in the name's case ("сестру Аню",
    "с сестрой Катей"); a name only in another case is the one the relation is of
    ("учительница мирона", "брат Гены"). A word the dictionary does not know, or reads no case
    of, agrees."""
    if not morph.word_is_known(name.casefold()):
        return True
    theirs = {p.tag.case for p in morph.parse(relation_word.casefold()) if p.tag.case}
    parses = morph.parse(name.casefold())
    if any("Surn" in p.tag for p in parses):
        return True  # "хирург Бахтияров": a surname's forms are read as a first name's too
    named = {p.tag.case for p in parses if "Name" in p.tag and p.tag.case}
    return not theirs or not named or bool(theirs & named)


def not_a_noun(word: str, morph: Any) -> bool:
    # The NER sometimes takes the capitalised adjective or verb that opens a sentence
    # ("Двоюродная сестра Света", "Передумала ...") into a name.
    best = morph.parse(word)[0]
    return bool(best.tag.POS in {"ADJF", "ADJS", "VERB", "INFN", "PRTF", "PRTS", "ADVB", "GRND"})
