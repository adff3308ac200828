"""The people of the user's life a message names, and who they are to the user.

English: no named-entity model ships inside a wheel on PyPI (spaCy's, Stanza's and flair's are
downloaded from their own servers at run time), so a capitalised word counts as a person where the
sentence treats it as one: after a relation word ("my colleague Marta"), before a verb of people
("Marta offered"), after a social verb ("met Marta", "with Marta"), or when it is a name the user
already told of. A first name of the gazetteer (data/first_names_census.txt, data/names.toml) is
a person wherever it stands and in any case ("jake bailed", "BERNIE CALLED IT", "callums
girlfriend"), unless it is also an everyday word ("will", "grace"): those count only capitalised
inside a sentence. Russian: natasha's slovnet NER (its model is in the wheel) and pymorphy2's
dictionary of first names (grammeme Name) give the name in its dictionary form ("с Мартой" ->
"Марта"), lowercase ("с олей") and in possessive adjectives ("Олина мама" -> "Оля") too.
Either way a relation word next to the name says who they are.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from selfimprint.domain.language import detect_language
from selfimprint.domain.structured import russian_names as ru
from selfimprint.domain.structured.cues import QUOTED, LanguageCues, normalise
from selfimprint.domain.structured.cues import cues as language_cues
from selfimprint.domain.structured.morphology import is_first_name
from selfimprint.domain.structured.name_keys import full_name_keys
from selfimprint.domain.structured.tokens import CAPITALISED, WORD, Token, tokenize
from selfimprint.domain.terms import FUNCTION_WORDS, NEGATIONS

# Capitalised at a sentence start, never a name ("My", "The", "Not").
_SKIP = FUNCTION_WORDS | NEGATIONS

_CYRILLIC_CAPITALISED = re.compile(r"^[А-ЯЁ][а-яё]+$")
_SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|\n)$")
_SENTENCE_BREAK = re.compile(r"[.!?…\n]")
_TITLE_DOT = re.compile(r"\b(?:dr|mr|mrs|ms|prof)\.", re.IGNORECASE)  # "my teacher Ms. Alvarez"
# How many words apart a relation word and a name may stand ("my older sister Anna").
_RELATION_WINDOW = 3


@dataclass(frozen=True)
class PersonMention:
    name: str  # dictionary form, as the user spells it ("Marta", "Марта")
    relation: str | None  # from the [relations] vocabulary of cues.toml
    start: int  # character span of the mention (the relation word included) in the text
    end: int


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
        if key in _SKIP or len(key) < 2 or (key in self.words and not inside):
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


_COPULAS = frozenset(
    {"is", "was", "'s", "been", "has", "had", "это", "a", "an", "the", "officially", "now",
     "теперь", "официально", "уже", "снова", "опять"}
)  # fmt: skip
# The Russian "my" / "our" forms both lists below read (the nominative and the oblique cases).
_RUSSIAN_MY = frozenset(
    {"мой", "моя", "моего", "моей", "моему", "моим", "наш", "наша", "нашего", "нашей"}
)  # fmt: skip
# "Муж у меня Антон", "Сестра у меня Аня": the everyday Russian "my" stands after the word.
# ... and so does a "new" ("соседка новая, Зоя Павловна").
_BETWEEN = _RUSSIAN_MY | {
    "called",
    "named",
    "нашему",
    "нашим",
    "у",
    "меня",
    "нас",
    "новая",
    "новый",
}
# After a sentence-initial word these say nothing of a person ("Work is crazy", "Life has ...").
_WEAK_AFTER = re.compile(r"^\s+(?:is|was|has|had|just|always|never|got|keeps|kept)\b", re.I)
# Kin words Russian speakers put before an elder's name whoever they are ("тётя Люба", "дядя
# Коля", "баба Валя"): the kin word unless another relation word stands before it.
_KIN_TITLES = frozenset({"тётя", "тетя", "дядя", "баба", "дед", "бабушка", "дедушка"})
_WHERE_THEY_ARE = frozenset({"снизу", "сверху", "напротив", "сбоку", "рядом"})
# What may stand between the word that says who an elder is and the elder's kin title.
_BESIDE_KIN = _WHERE_THEY_ARE | _RUSSIAN_MY | frozenset({"новый", "новая", "новенькая"})


# Plural nouns chat types without their apostrophe before a relation word ("the twins dad",
# "the kids mum"): the relation is theirs.
_THEIR_KIN = frozenset({"twins", "kids", "boys", "girls", "childrens", "sons", "daughters"})


def _spaces_between(gap: str) -> bool:
    """Whether only spaces stand between the words of `gap` (no comma, no full stop)."""
    return all(not part or part.isspace() for part in re.split(r"[^\W\d_]+", gap))


# Titles stand between a relation word and a name ("my therapist Dr. Brandt").
_TITLES = frozenset(
    {"dr", "mr", "mrs", "ms", "prof", "frau", "herr", "pastor", "rev", "reverend", "doña", "доктор"}
)
# A capitalised word after these is a place or a company, unless a relation word says otherwise.
_PLACE_BEFORE = re.compile(
    r"\b(?:to|in|from|at|near|into|via|for|в|во|из|на)\s+(?:the\s+)?$", re.IGNORECASE
)
# "thanks to Dougie", "talked to Ana": "to" after these leads to a person, not a place.
_TO_SOMEONE = re.compile(
    r"\b(?:thanks|thank|talk(?:ed|ing)?|sp(?:oke|eak|eaking)|sa(?:id|ying)|listen(?:ed|ing)?"
    r"|married|engaged|introduced|lied|explain(?:ed)?|apologi[sz]ed|sen[dt]|g[ia]ve|wr[io]te"
    r"|repl(?:y|ied)|handed|lent|owe[sd]?|according)\s+(?:it\s+|that\s+|this\s+)?to\s+$",
    re.IGNORECASE,
)
# Holidays: "Merry Christmas", "Christmas Eve", "happy valentines", "secret santa" name no one.
_HOLIDAYS = frozenset(
    "christmas xmas easter hanukkah diwali eid thanksgiving halloween valentines santa".split()
)
# Two capitalised words joined by "&", the second no first name: a firm ("Chloe & Ravi" are two).
_FIRM = re.compile(r"\s*&\s*([A-Z][a-z]+)\b")
_FIRM_BEFORE = re.compile(r"\b[A-Z][a-z]+\s*&\s*$")


def _a_firm(text: str, token: Token, names: Gazetteer) -> bool:
    second = _FIRM.match(text, token.end)
    if second is not None:
        return names.name_of(second.group(1), inside=True) is None
    return bool(_FIRM_BEFORE.search(text[: token.start])) and (
        names.name_of(token.text, inside=True) is None
    )


_POSSESSIVES = _RUSSIAN_MY | {"my", "our", "мою", "нашу"}


# A friend-word qualified by where the user knows them from is that group ("my work mate
# Keisha", "my uni mate Sophie"): issue 34's everyday phrasings of colleague and classmate, as
# `_GROUP_AFTER` reads them after the name ("Keisha from work").
_FRIEND_FROM = {
    "work": "colleague",
    "office": "colleague",
    "job": "colleague",
    "uni": "classmate",
    "university": "classmate",
    "college": "classmate",
    "class": "classmate",
    "lady": "girlfriend",  # "my lady friend Brenda"
    "gentleman": "boyfriend",
    "course": "classmate",
}
# A neighbour "по комнате / по общаге / по блоку" shares the room: a roommate.
_SHARED_ROOM = re.compile(r"^(?:комнат|общаг|блок|квартир|хат)", re.IGNORECASE)


_SPOUSES = frozenset({"wife", "husband", "girlfriend", "boyfriend", "partner"})
_FORMER = frozenset(
    {"first", "former", "previous", "old", "первая", "первый", "прежняя", "прежний"}
)


def _qualified(relation: str, tokens: list[Token], at: int) -> str:
    """The relation word at tokens[at], read with the word before or the two after it."""
    before = tokens[at - 1].text.casefold() if at > 0 else ""
    if relation == "friend":
        return _FRIEND_FROM.get(before, relation)
    if relation == "partner" and before == "work":
        return "colleague"  # "my work partner Nikki"
    after = tokens[at + 1].text.casefold() if at + 1 < len(tokens) else ""
    if after in _RUSSIAN_MY and at + 2 < len(tokens):
        after = tokens[at + 2].text.casefold()  # "сестра моя двоюродная"
    if relation in ("brother", "sister") and (
        before.startswith("двоюродн") or after.startswith("двоюродн")
    ):
        return "cousin"  # "двоюродный брат Вовка", "Лена, сестра двоюродная" (the guide's reading)
    if relation in _SPOUSES and before in _FORMER:
        return "ex"  # "my first wife Sherry", "первая жена", "former husband"
    if (
        relation == "neighbour"
        and at + 2 < len(tokens)
        and tokens[at + 1].text.casefold() == "по"
        and _SHARED_ROOM.match(tokens[at + 2].text)
    ):
        return "roommate"
    return relation


# Said to be someone else's relative or partner: no relation to the user, and none said
# elsewhere in the message is theirs (`_relations_apart`); read as None in the end.
_THEIRS = "\x00theirs"
# "Dr Mackay phoned": a doctor by the title alone, unless the message says who they are apart
# from the name ("Dr Helen Fraser owns the practice, she's my boss"); read as doctor in the end.
_TITLED_DOCTOR = "\x00dr"


# Russian "парень" and "девушка" are any young man or woman ("парень Ираклий из клуба", "на
# девушке Насте"); before a name they are the user's partner only owned ("мой парень Илья",
# "с девушкой Настей") or made official ("теперь парень Илья").
_GUY_OR_GIRL = re.compile(r"^(?:парен|парн|девушк)", re.IGNORECASE)
_OWNED_PARTNER = _POSSESSIVES | frozenset(
    "моей моим моему моего с со официально теперь уже появился появилась есть".split()
)


def _a_guy(tokens: list[Token], at: int, index: int) -> bool:
    """Whether tokens[at], right before the name at tokens[index], is a Russian word for a young
    man or woman that no possessive makes the user's partner."""
    if not _GUY_OR_GIRL.match(tokens[at].text):
        return False
    if [t.text.casefold() for t in tokens[at + 1 : index]] == ["по", "имени"]:
        return True  # "парень по имени Артур": a guy named Артур
    if at + 1 != index:
        return False  # "Девушка моя Настя": a possessive between
    return at == 0 or tokens[at - 1].text.casefold() not in _OWNED_PARTNER


def _relation_near(
    text: str, tokens: list[Token], index: int, relation_of: Any
) -> tuple[str | None, int, int]:
    """Who the name at tokens[index] is to the user, from a relation word right before it ("my
    colleague Marta", "сестра Аня") or a possessive one after it ("Marta, my colleague", "Аня —
    моя сестра"); None when neither stands there."""
    name = tokens[index]
    before = index - 1
    doctor = False  # "Dr Mackay phoned": a doctor, unless a word beside says who else
    while before >= 0 and tokens[before].text.casefold() in _TITLES:
        title = relation_of(tokens[before].text)
        if title:
            return title, tokens[before].start, name.end
        doctor = doctor or tokens[before].text.casefold() == "dr"
        before -= 1
    # "Сестрёнка моя Люда", "my instructor called Pete": a possessive or "called" between.
    while before > 0 and tokens[before].text.casefold() in _BETWEEN:
        before -= 1
    # "соседка по даче Нина", "коллега по работе Марта": where from, between word and name.
    if before > 1 and tokens[before - 1].text.casefold() == "по":
        before -= 2
    # "к эндокринологу, к Дине Маратовне": the same preposition before a relation word of
    # someone's trade and, after a comma, before the name makes the two one person ("к маме, к
    # Оле" is a list: kin are called by the kin word, not named beside it).
    if (
        before >= 2
        and tokens[before].text.casefold() in ru.GOVERNS
        and tokens[before].text.casefold() == tokens[before - 2].text.casefold()
        and text[tokens[before - 1].end : tokens[before].start].strip() == ","
    ):
        parallel = relation_of(tokens[before - 1].text)
        listed_on = re.match(rf"\s*,\s*{re.escape(tokens[before].text)}\s", text[name.end :], re.I)
        if parallel in _BY_TRADE and not listed_on:  # "к начальнику, к Оле, к Пете": a list
            return parallel, tokens[before - 1].start, name.end
    # Within the sentence: "he is my neighbour. Anna too" says nothing of Anna.
    gap = _TITLE_DOT.sub("", text[tokens[before].end : name.start]) if before >= 0 else ""
    if before >= 0 and not _SENTENCE_BREAK.search(gap) and not _listed(gap, text, name):
        relation = relation_of(tokens[before].text)
        if relation and tokens[before].text.casefold() in _KIN_TITLES:
            # "соседка тётя Галя", "соседка снизу тётя Роза": an elder's title after the word
            # that says who she is (and where she lives); "баба Шура соседка наша": before it.
            # ... with where she lives, "наша" or "новый" between ("соседка наша тётя валя",
            # "сосед наш новый дядя Гена").
            who = before - 1
            while who > 0 and before - who <= 4:
                if tokens[who].text.casefold() in _BESIDE_KIN:
                    who -= 1
                elif who > 1 and tokens[who - 1].text.casefold() == "по":
                    who -= 2  # "соседка новая по площадке баба Шура"
                else:
                    break
            earlier = relation_of(tokens[who].text) if who >= 0 else None
            if earlier and _spaces_between(text[tokens[who].end : tokens[before].start]):
                if who > 0 and _of_another(tokens[who - 1].text):
                    return _THEIRS, tokens[who].start, name.end  # "настина мама тетя лена"
                return earlier, tokens[who].start, name.end
            later = relation_of(tokens[index + 1].text) if index + 1 < len(tokens) else None
            if later and text[name.end : tokens[index + 1].start].isspace():
                return later, tokens[before].start, tokens[index + 1].end
        owned = before > 0 and (
            _of_another(tokens[before - 1].text)
            or text.startswith("s' ", tokens[before - 1].end - 1)  # "jules' girlfriend noor"
            or _name_possessive_unmarked(tokens[before - 1].text)  # "liams mum sandra"
            or (  # "Вадимов сын Кирилл"
                _CYRILLIC_CAPITALISED.match(tokens[before - 1].text) is not None
                and _owner_before_noun(text, tokens, before - 1, ru.russian_tools()[2]) is not None
            )
        )
        if relation and owned:
            # "her brother Tom", "Niamh's husband Pádraig", "Гулин брат Айдар": their relation
            # to someone else, which the guide leaves unsaid (and no other word may say it).
            return _THEIRS, tokens[before].start, name.end
        if (
            relation
            and _CYRILLIC_CAPITALISED.match(name.text)
            and not ru.same_case(name.text, tokens[before].text, ru.russian_tools()[2])
        ):
            relation = None  # "брат Глеба": Gleb's brother, not Gleb (the cases differ)
        if relation and _a_guy(tokens, before, index):
            # "парень Ираклий из клуба": a guy, no one's boyfriend (nor is the word said apart).
            return None, tokens[before].start, name.end
        if relation:
            return _qualified(relation, tokens, before), tokens[before].start, name.end
    if (
        index + 1 < len(tokens)
        and tokens[index + 1].text.casefold().startswith("двоюродн")
        and not (index + 2 < len(tokens) and relation_of(tokens[index + 2].text))
    ):
        # "Настя двоюродная из Абакана"; "Гоги — двоюродный брат мужа" is read with its noun.
        return "cousin", name.start, tokens[index + 1].end
    j = index + 1
    while j < len(tokens) and j <= index + 3 and tokens[j].text.casefold() in _COPULAS:
        j += 1
    after_article = tokens[j - 1].text.casefold() in ("a", "an", "the")
    possessive = j < len(tokens) and tokens[j].text.casefold() in _POSSESSIVES
    if possessive or after_article:
        # "Donna, my aqua aerobics instructor": up to three words after the possessive.
        for k in (j + 1, j + 2, j + 3) if possessive else (j, j + 1):
            relation = relation_of(tokens[k].text) if k < len(tokens) else None
            named_next = k + 1 < len(tokens) and bool(CAPITALISED.match(tokens[k + 1].text))
            if relation and tokens[k - 1].text.casefold() in _THEIR_KIN:
                break  # "marcus is the twins dad": the children's father
            if relation and not named_next:  # "Tom and my sister Anna": Anna's sister-ness
                return _qualified(relation, tokens, k), name.start, tokens[k].end
    # "jess (roomie)", "eli (baby brother, 21)": a relation word said in brackets after it.
    bracket = _BRACKET.match(text, name.end)
    if bracket:
        for word in WORD.findall(bracket.group(1)):
            relation = relation_of(word)
            if relation:
                return relation, name.start, bracket.end()
    title = tokens[index - 1]
    if doctor and not _ANOTHERS_BEFORE.search(text[max(0, title.start - 30) : title.start]):
        # Said in a message about therapy, the title is a therapist's ("therapy today was A
        # Lot. dr okafor said ..."); another's ("kayla's advisor dr hoffman") is theirs.
        titled = "therapist" if _THERAPY.search(text) else _TITLED_DOCTOR
        return titled, title.start, name.end
    return None, name.start, name.end


# "мама, Полина, Вадим": a name between commas with another name after it is one of a list,
# and the relation word before it is an item of its own.
_NEXT_ITEM = re.compile(r"\s*,\s*[A-ZА-ЯЁ]")


def _listed(gap: str, text: str, name: Token) -> bool:
    return "," in gap and bool(_NEXT_ITEM.match(text, name.end))


_ANOTHERS_BEFORE = re.compile(r"(?:\w(?:'s|’s)|\b(?:his|her|their))\b[^.!?]*$", re.IGNORECASE)
_THERAPY = re.compile(r"\btherap(?:y|ist)\b|\bcounsell?(?:ing|or)\b", re.IGNORECASE)


_BRACKET = re.compile(r"\s*\(((?:[^()\s,]+\s*){1,3})[^()]*\)")


# Who a name is by the group the user knows them from ("Keisha from work", "Hannah from uni",
# "Костя с работы", "Earl next door"): issue 34's everyday phrasings of colleague, classmate and
# neighbour.
_GROUP_AFTER = (
    (
        "colleague",
        re.compile(
            # "Lena Vogt, the postdoc in our group": a word for what they do may stand first.
            r"^,?\s+(?:the\s+(?:[\w-]+\s+){1,2}?)?(?:(?:from|at)\s+(?:work|the office"
            r"|my (?:(?:new|old) )?(?:work|job|office|team))"
            r"|on my team"
            # "from the day crew", "from the QA pod", "who used to work with me"
            r"|from (?:(?:my|our) (?:[\w-]+ ){0,2}|the (?:[\w-]+ ){1,2})"
            r"(?:team|crew|shift|department|dept|pod|squad)"
            # Where the user works, as the place they share: "Priya from my lab", "Orla in the
            # maths department", "Tobias from the lab", "Zofia at our practice".
            r"|(?:from|in|at|on) (?:my|our) (?:[\w-]+ ){0,2}(?:lab|office|group|unit|ward|site"
            r"|practice|clinic|kitchen|salon|depot|warehouse|department|dept)"
            r"|(?:from|in) the (?:[\w-]+ ){0,2}(?:lab|office|department|dept|warehouse|depot|yard"
            r"|kitchen|plant|factory|shop floor|ward|dispensary|stockroom|control room)"
            # "Bev, one of the other bus drivers", "bruno the other dev": the user is one too.
            r"|(?:one of )?the other (?:[\w-]+ )?(?:drivers?|devs?|developers?|nurses?|teachers?"
            r"|cooks?|chefs?|cleaners?|porters?|guards?|baristas?|engineers?|techs?|night guy)"
            r"|who (?:used to )?(?:works?|worked) with me"
            r"|(?:who|that) i (?:used to )?work(?:ed)? (?:with|wi)\b"
            # A department, as the labelling guide reads "someone from accounting".
            r"|(?:from|in) (?:the )?(?:hr|accounting|accounts|finance|payroll|marketing|sales"
            r"|legal|qa|reception|front desk|support|customer service|dispatch|admin|ops|operations"
            r"|procurement|compliance|engineering|design|logistics|litigation|conveyancing|audit)"
            r"|из (?:hr|эйчар\w*|бухгалтерии|отдела кадров|кадров|маркетинга|продаж|тестирования"
            r"|поддержки|саппорта|юротдела|айти|логистики|закупок|ресепшена|регистратуры"
            r"|администрации|дизайна|аналитики|разработки|бэкенда|фронтенда)"
            r"|с работы|с моей работы|из (?:(?:соседнего|нашего|моего|другого) )?отдела"
            # "Ринат из ПТО", "бахтияр с нашего склада", "ильдар с соседней бригады", "Айдар с
            # ресепшена", "марина из тренерской"
            r"|(?:с|из) (?:(?:нашего|нашей|соседнего|соседней|моего|моей) )?(?:склада|бригады"
            r"|смены|цеха|салона|тренерской|учительской|ординаторской|экипажа|ресепшена|пто)"
            r"|из (?:моей|нашей) (?:команды|смены|бригады|лаборатории|клиники|больницы|отделения"
            r"|мастерской|кухни)"
            r"|(?:который|которая) работа\w+ со мной)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "classmate",
        re.compile(
            # "from vet nursing college", "from my old UH accounting classes"
            r"^,?\s+(?:from\s+(?:(?:my|our)\s+)?(?:(?:old|former)\s+)?(?:(?!the\b)[\w-]+\s+){0,3}?"
            r"(?:uni|university|college|class(?:es)?|course|program|programme|section|seminar"
            r"|lecture|school)|из (?:универа|института|университета|группы"
            r"|класса)"
            # "Yaw and I were in the same class at Legon"
            r"|and (?:i|me) (?:were|was) in the same (?:class|year|course|form|group))\b",
            re.IGNORECASE,
        ),
    ),
    (
        "neighbour",
        re.compile(
            r"^,?\s+(?:(?:from )?next door|from (?:upstairs|downstairs|across the (?:hall|road|"
            r"street))|(?:с|из) (?:соседней квартиры|соседнего подъезда)|по (?:даче|площадке)"
            r"|сосед\w*)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "teacher",
        re.compile(
            r"^,?\s+(?:who\s+)?(?:coaches|trains|teaches|tutors) me\b"
            r"|^,?\s+(?:тренирует|учит|тренировал\w*|учил\w*) меня\b",
            re.IGNORECASE,
        ),
    ),
)


# A name opening a line and followed by a colon labels who speaks ("Caroline: hey!"); one after
# a greeting is whom they speak to ("hey Mel!"): neither is someone the message is about.
_SPEAKER = re.compile(r"^\s*:")
_AFTER_COMMA = re.compile(r",\s*$")
_CLAUSE_END = re.compile(r"^\s*(?:[!?.…]|$)")
_GREETINGS = frozenset(
    {"hey", "hi", "hello", "hiya", "yo", "thanks", "thank", "bye", "night", "morning",
     "привет", "спасибо", "пока", "здравствуй", "здравствуйте"}
)  # fmt: skip

# "night"/"morning" greet only as a greeting opens a clause ("morning Geoff!", "good night
# Jess"), not as a time of day ("this morning geoff was up at 5").
_PARTS_OF_DAY = frozenset({"night", "morning"})
_CLAUSE_OPENS = re.compile(r"(?:^|[.!?…,;:\n]\s*|\bgood\s+)$", re.IGNORECASE)


def _greeted(text: str, tokens: list[Token], i: int) -> bool:
    """The word before token `i` greets or thanks the one it names ("hey Mel", "thanks Jo")."""
    if not i:
        return False
    word = tokens[i - 1].text.casefold()
    if word not in _GREETINGS:
        return False
    return word not in _PARTS_OF_DAY or bool(_CLAUSE_OPENS.search(text[: tokens[i - 1].start]))


# A capitalised word before these names a place ("Myrtle Beach", "Sydney Road"), not a person.
_PLACE_NOUNS = frozenset(
    {
        "avenue", "bank", "bay", "beach", "bridge", "centre", "center", "church", "city",
        "college", "county", "court", "drive", "hall", "hill", "hospital", "island", "lake",
        "lane", "market", "mountain", "park", "place", "point", "river", "road", "school",
        "square", "station", "street", "tower", "university", "valley", "way",
        # Events, clubs and firms named after a place ("Chester marathon", "Roath Harriers",
        # "Chester logistics" is the race's): issue 34's writers' false people.
        "marathon", "half", "10k", "5k", "parkrun", "festival", "fest", "fair", "show", "zoo",
        "airport", "harriers", "rovers", "united", "athletic", "logistics", "motors", "council",
    }
)  # fmt: skip


# Where a neighbour lives, said right after their name with no "from" ("Mrs Dalgleish
# downstairs"): read only for a listed or titled name, since "Lady across the hall" is no name.
_WHERE_THEY_LIVE = re.compile(
    r"^,?\s+(?:upstairs|downstairs|across the (?:hall|road|street|landing))\b", re.IGNORECASE
)


# A parent's, a partner's and a cousin's everyday words, which say who someone is only after
# "my" ("my boy Mike", "Graham, my boy,", "Ellie's my little girl", "my fella Conor", "my lady
# keisha", "my cuz Tay"): bare, "boy", "girl" and "fella" name anyone ("the boy next door", "a
# nice young fella") and "cuz" is "because", so they are no relation words.
_ENDEARMENTS = {
    "boy": "son",
    "girl": "daughter",
    "fella": "boyfriend",
    "feller": "boyfriend",
    "lady": "partner",
    "cuz": "cousin",  # "cuz" alone is "because"
    "lad": "son",
    "laddie": "son",
    "lassie": "daughter",
    "old man": "father",
    "dawg": "friend",
    "dude": "friend",
}
_ENDEARMENT_WORDS = "|".join(_ENDEARMENTS)
_MY_ONE = rf"my\s+(?:(?:baby|little|oldest|eldest|youngest|big)\s+)?({_ENDEARMENT_WORDS})"
_ENDEARMENT_BEFORE = re.compile(rf"\b{_MY_ONE},?\s+$", re.IGNORECASE)
_ENDEARMENT_AFTER = re.compile(
    rf"^(?:\s*,|\s*(?:'s|’s|s|\s+is|\s+was|\s+been|\s+has been))\s+{_MY_ONE}\b(?!\s+friend)",
    re.IGNORECASE,
)


# "my boy Tony from the gym", "dre been my boy since 9th grade": a friend, not a son; "me and
# my girl kiana": a partner, not a daughter.
_PAL_SINCE = re.compile(
    r"^,?\s+(?:from (?:the )?(?:gym|block|hood|ends|estate|way back)|since (?:\d+(?:st|nd|rd|th)"
    r"|(?:primary|middle|high|grade|secondary) school|school|uni|college|day one|we were)\b)",
    re.IGNORECASE,
)
_WITH_PARTNER = re.compile(r"\b(?:me and|me n|me & )\s*$", re.IGNORECASE)


# "DRE my boy from work": with no comma between them, only where a group or a since follows.
_ENDEARMENT_APPOSED = re.compile(rf"^\s+{_MY_ONE}\b", re.IGNORECASE)


def _endearment(before: str, after: str) -> str | None:
    front = _ENDEARMENT_BEFORE.search(before)
    said = front or _ENDEARMENT_AFTER.match(after) or _ENDEARMENT_APPOSED.match(after)
    if said is None:
        return None
    word = said.group(1).casefold()
    rest = after if front else after[said.end() :]
    if word in _CHILDREN or word == "dude":
        if _PAL_SINCE.match(rest):
            return "friend"
        if _group_relation(rest) == "colleague":
            return "colleague"
        if front and word == "girl" and _WITH_PARTNER.search(before[: front.start()]):
            return "girlfriend"
    if said.re is _ENDEARMENT_APPOSED:
        return None
    return _ENDEARMENTS[word]


# "my youngest macsen", "my eldest, Osian": a child named by birth order, a son or a daughter
# by the message's pronouns (none or both: no relation said).
_ORDER = r"(?:my|our)\s+(?:youngest|oldest|eldest|middle\s+one|last\s*born|first\s*born)"
_BY_ORDER = re.compile(rf"\b{_ORDER},?\s+$", re.IGNORECASE)
# ... or after the name: "Arjun (my oldest)", "DAYO my last born", "Lorraine my youngest".
_BY_ORDER_AFTER = re.compile(rf"^\s*[,(]?\s*{_ORDER}\b", re.IGNORECASE)
_HE_CHAT = re.compile(r"\b(?:he|him|his|he's|hes|himself)\b", re.IGNORECASE)


def _child_by_order(text: str, before: str, after: str = "") -> str | None:
    if not (_BY_ORDER.search(before) or _BY_ORDER_AFTER.match(after)):
        return None
    he, she = bool(_HE_CHAT.search(text)), bool(_SHE.search(text))
    return "son" if he and not she else "daughter" if she and not he else None


# "my pops name is Darnell", "my boss's name is Trish": who they are, then their name.
_NAME_OF_MY = re.compile(r"\bmy\s+([^\W\d_]+?)(?:'s|’s|s)?\s+name\s+(?:is|was)\s+$", re.I)


def _named_as(before: str, relation_of: Callable[[str], str | None]) -> str | None:
    said = _NAME_OF_MY.search(before)
    if said is None:
        return None
    word = said.group(1)
    return relation_of(word) or relation_of(word + "s")  # "pops" is a relation word itself


# "tadhg and kasia from work": the group said after the pair is each one's.
_AND_ANOTHER = re.compile(r"^\s+(?:and|&)\s+[^\W\d_]+(?=\s)", re.IGNORECASE)


def _group_relation(after: str) -> str | None:
    return next((relation for relation, said in _GROUP_AFTER if said.match(after)), None)


# "the guy from HR, Marcus", "this woman from my course, Ana": the group said of someone before
# the name, read with the same phrases as after it.
_SOMEONE_BEFORE = re.compile(
    r"\b(?:the|a|this|that|one)\s+(?:guy|girl|woman|man|lady|bloke|fella|dude|chap|lad|lass"
    r"|one|person|kid)((?:\s+[^\s,.!?]+){1,5}),\s*$",
    re.IGNORECASE,
)


def _group_before(before: str) -> str | None:
    said = _SOMEONE_BEFORE.search(before)
    return _group_relation(said.group(1)) if said else None


def _said_to_be_someone(text: str, tokens: list[Token], i: int, relation_of: Any) -> bool:
    """Whether the lowercase word at tokens[i] stands where a name does beside a relation word:
    "pete my running coach", "my cousin vik", "hazel next door", "ирка моя подруга". Chat types
    names in lowercase that no list holds (or holds as everyday words, "dawn", "hazel"); the
    caller still asks the reader of words (English) or the dictionary (Russian) whether the
    word could be a name at all, so "my sister said" names no one."""
    relation, start, _ = _relation_near(text, tokens, i, relation_of)
    if relation in ("mother", "father") and start < tokens[i].start:
        return False  # "mum rang", "dad says": a parent word is no title before a name
    relation = relation or _group_relation(text[tokens[i].end :])
    if _BY_ORDER.search(text[: tokens[i].start]):
        return True  # "my youngest macsen"
    return relation is not None and relation != _THEIRS


# A break-up said with the name makes the partner an ex (the labelling guide's reading): "me and
# Jake broke up", "nadia and i ended things", "мы с Толей расстались".
_BREAK_UP = re.compile(
    r"\b(?:broke up|break up|split up|splitting up|ended things|dumped"
    r"|called it (?:quits|off|a day)"
    r"|binned (?:me )?off|растались"
    r"|(?:called|broke) off (?:the|our) engagement"
    r"|sep[ae]rat(?:ed|ing)|divorc(?:ed|ing)"
    r"|расстались|разошлись|расстаёмся|расстаемся|развелись|разводимся"
    r"|расстаться|разойтись|развестись)\b",
    re.IGNORECASE,
)


def _rest_of_sentence(text: str, mention: PersonMention) -> str:
    sentence_end = re.search(r"[.!?\n]", text[mention.end :])
    return (
        text[mention.end : mention.end + sentence_end.start()]
        if sentence_end
        else text[mention.end :]
    )


# "rory ended it", "Brenda ended things tonight": the partner ended it with the user (not "Tom
# ended it with his girlfriend", another's).
_ENDED_IT = re.compile(
    r"^\s+(?:just\s+|finally\s+|has\s+|officially\s+)?ended (?:it|things)"
    r"(?:\s+(?:with me|for good|tonight|today|yesterday|last night|this morning))?"
    # A run-on's next clause: "nadia ended things we sat in the car for two hours".
    r"\s*(?:[.!?,…]|$|\b(?:and|we|i|so|but)\b)",
    re.IGNORECASE,
)
# "ended it with mark", "broke up with Jake": the user's break-up said before the name.
_ENDED_WITH = re.compile(
    r"(?:^|[.!?]\s*|\b(?:i|we|i've|just|finally)\s+)(?:ended (?:it|things)|broke up|split up"
    r"|finished (?:it|things)) with\s+$",
    re.IGNORECASE,
)


def _broke_up_with(text: str, mention: PersonMention) -> bool:
    """The user's own break-up with them: "me and Jake broke up", "Jake dumped me", "мы с Толей
    расстались", "ended it with mark"; not "her and Sam broke up"."""
    if _ENDED_WITH.search(text[: mention.start]) or _ENDED_IT.match(text[mention.end :]):
        return True
    if _WITH_BEFORE.search(text[: mention.start]) and _PARTED_AFTER.match(text[mention.end :]):
        return True  # "с катей расстались"
    rest = _rest_of_sentence(text, mention)
    # Said within the clause's first words, however long the run-on goes on after it ("kayla
    # and i broke up sunday, she said she needs someone who ..."); "dumped a 200 page review on
    # me" is work, "almost called it quits" no break-up.
    first = " ".join(rest.split()[:6])
    with_user = (
        _COUPLE_BEFORE.search(text[: mention.start])
        or _COUPLE_AFTER.match(rest)
        or _TO_ME.search(first)
    )
    return bool(with_user and _BREAK_UP.search(first) and not _ALMOST.search(first))


_ALMOST = re.compile(r"\b(?:almost|nearly|почти|чуть не)\b", re.IGNORECASE)


# A break-up told in the first person with no name by it ("разошлись мы", "we broke up", "he
# dumped me"): the ex is the one person the message names, when it names one.
_WE_BROKE_UP = re.compile(
    r"\b(?:we|we've|we have)\s+(?:just\s+|finally\s+|officially\s+)?(?:broke(?:n)? up|split"
    r"(?: up)?|ended (?:it|things))\b|\b(?:dumped|left|ghosted) me\b"
    r"|\bi (?:dumped|left) (?:him|her)\b"
    r"|\bwe(?:'re| are) (?:done|over|finished)\b"
    r"|\b(?:мы\s+)?(?:расстались|растались|разошлись|расходимся|разводимся)(?:\s+мы)?\b"
    r"|\bмы\s+больше\s+не\s+(?:встречаемся|вместе)\b|\bбросил[аи]? меня\b",
    re.IGNORECASE,
)
# The user made another's partner ("eoin asked me to be his girlfriend", "she introduced me
# as her fella"): that one is the user's boyfriend (his) or girlfriend (her).
_MADE_PARTNER = re.compile(
    r"\b(?:asked me to be|called me|introduced me(?: \w+){0,5} as|i'?m now|i'?m officially)"
    r" (?P<whose>his|her) (?:girlfriend|boyfriend|partner|fella|man|woman|gf|bf)\b",
    re.IGNORECASE,
)
# The couple said with the name: "me and Jake are done", "Nadia and I are through".
_ARE_DONE = re.compile(
    r"^\s+(?:(?:and (?:i|me) )?(?:(?:are|'re) )?(?:(?:officially|officialy|offically|so) )?"
    r"(?:done|over|through|finished)(?:\s+(?:for good|again))?"
    r"|вс[её](?:\s+(?:насовсем|окончательно))?)\s*(?:[.!?,…]|$)",
    re.IGNORECASE,
)
_TO_ME = re.compile(r"\b(?:me|мной|меня)\b", re.IGNORECASE)
# The couple said with the name: "мы с Толей теперь вместе", "me and Jake are back together",
# "Sam and I are dating": the partner (the labelling guide's reading).
_TOGETHER = re.compile(
    r"\b(?:made it official|back\s+together"
    r"|(?:are|'re)\s+(?:back\s+|now\s+|officially\s+)?(?:together|dating"
    r"|a couple|an item"
    # "going out" ends the clause: "me and Tom are going out for drinks" is an evening out.
    r"|official|(?:a\s+)?thing|going out(?=\s*(?:[.!?,…]|$|now\b|properly\b))"
    r"|seeing each other|exclusive)"
    r"|(?:теперь|снова|опять|уже|официально)?\s*(?:вместе|встречаемся|пара)\b)",
    re.IGNORECASE,
)
_COUPLE_BEFORE = re.compile(r"(?:\bмы\s+с|\bme\s+(?:and|n|an|&)|\bрешили\s+с)\s+$", re.IGNORECASE)
_COUPLE_AFTER = re.compile(r"^\s+and\s+(?:i|me)\b", re.IGNORECASE)


_A_WOMAN = re.compile(r"\b(?:girl|woman|lady)\b", re.IGNORECASE)
_HE = re.compile(r"\b(?:he|him|his|he's|он|его|ему)\b", re.IGNORECASE)
_SHE = re.compile(r"\b(?:she|her|hers|she's|она|её|ее|ей)\b", re.IGNORECASE)


_A_MAN_OF_MINE = re.compile(r"\b(?:(?:a|my) (?:bf|boyfriend|fella|feller))\b", re.IGNORECASE)
_A_WOMAN_OF_MINE = re.compile(r"\b(?:(?:a|my) (?:gf|girlfriend))\b", re.IGNORECASE)


def _dating(text: str, mention: PersonMention, cues: LanguageCues) -> str:
    """Who a person the user is together with is: boyfriend or girlfriend by the word before
    the name ("the guy I'm seeing"), the name's gender (Russian names, by the dictionary) or
    the pronouns of the message ("Ana and I are dating, she ..."); partner when none says."""
    gender = None
    said = _DATING_BEFORE.search(text[: mention.start])
    after = _DATING_AFTER.match(text[mention.end :])
    if said and (said.group("he") or said.group("him") or _A_WOMAN.search(said.group(0))):
        gender = "masc" if said.group("he") or said.group("him") else "femn"
    elif after:
        gender = "masc" if after.group("he") else "femn"
    elif cues.language == "ru":
        morph = ru.russian_tools()[2]
        names = [p for p in morph.parse(mention.name) if "Name" in p.tag]
        tag = names[0].tag if names else None
        if tag is not None:
            gender = "masc" if "masc" in tag else "femn" if "femn" in tag else None
    if gender is None:
        # "so i have a fella. rob and i made it official", "i have a bf again??"
        him, her = bool(_A_MAN_OF_MINE.search(text)), bool(_A_WOMAN_OF_MINE.search(text))
        gender = "masc" if him and not her else "femn" if her and not him else None
    if gender is None:
        he, she = bool(_HE.search(text)), bool(_SHE.search(text))
        gender = "masc" if he and not she else "femn" if she and not he else None
    return {"masc": "boyfriend", "femn": "girlfriend"}.get(gender or "", "partner")


def _done_with(text: str, mention: PersonMention) -> bool:
    after = text[mention.end :]
    couple = _COUPLE_BEFORE.search(text[: mention.start]) or _COUPLE_AFTER.match(after)
    return bool(couple and _ARE_DONE.match(after))


# Dating said before the name: "встречаюсь с Гошей", "I've started dating Ana", "the guy I'm
# seeing, Theo" ("I'm seeing Tom tomorrow" is a meeting: "seeing" only after "the guy").
_DATING_BEFORE = re.compile(
    r"(?:\bвстречаюсь\s+с|\b(?:i'?m|i am|started|been|am)\s+dating"
    r"|\bthe (?:(?P<he>guy|boy|man)|girl|woman|lady) (?:i'?m|i am|i've been) (?:seeing|dating),?"
    r"|\b(?:seeing|dating) (?:this|a) (?:(?P<him>guy|boy|man)|girl|woman|lady))"
    r"\s+$",
    re.IGNORECASE,
)


# "завтра встречаюсь с Машей в кафе" is a meeting: a time before it or a place after it.
_A_MEETING = re.compile(
    r"(?:завтра|сегодня|вечером|утром|потом)\s+встречаюсь\s+с\s+$"
    r"|^\s+(?:в|во|на|у|после|завтра|сегодня|вечером|утром|днем|днём)\b",
    re.IGNORECASE,
)


# "neil, the guy im seeing off hinge": the same said after the name.
_DATING_AFTER = re.compile(
    r"^\s*,\s+the (?:(?P<he>guy|boy|man|lad|fella)|girl|woman|lady)"
    r" (?:i'?m|i am|i'?ve been|ive been) (?:seeing|dating)\b",
    re.IGNORECASE,
)
# "с катей расстались", "с лизой сошлись": the user's plural verb right after "с" and the name.
_WITH_BEFORE = re.compile(r"(?:^|[\s,.!?…])(?:с|со)\s+$", re.IGNORECASE)
_PARTED_AFTER = re.compile(
    r"^\s+(?:мы\s+)?(?:расстались|разошлись|развелись|расходимся|разводимся)\b", re.IGNORECASE
)
_JOINED_AFTER = re.compile(
    r"^\s+(?:мы\s+)?(?:снова\s+|опять\s+)?(?:сошлись|съехались|начали встречаться)\b",
    re.IGNORECASE,
)


def _together_with(text: str, mention: PersonMention) -> bool:
    before, after = text[: mention.start], text[mention.end :]
    if _DATING_AFTER.match(after) or (_WITH_BEFORE.search(before) and _JOINED_AFTER.match(after)):
        return True
    if _DATING_BEFORE.search(before):
        return not (_A_MEETING.search(before) or _A_MEETING.match(after))
    rest = _rest_of_sentence(text, mention)
    couple = bool(_COUPLE_BEFORE.search(text[: mention.start]) or _COUPLE_AFTER.match(rest))
    # Said within the clause's first words ("theo and i are official 🫣 i have a bf again").
    return couple and bool(_TOGETHER.search(" ".join(rest.split()[:6])))


# Who someone is, said of them apart from the name: "he was my smoke buddy", "shes my
# girlfriend now", "она моя подруга", "коллега моя новая" (a relation word with the user's
# possessive after it, the spoken Russian order). Read for the one person the message names.
# Issue 34: any relation word the user owns ("my climbing buddy is FAMOUS", "annoyingly wise,
# my sister"), not only after "he is": still only for the one person the message names.
_EN_SAID = (
    r"\b(?:(?:he|she|they)\s*(?:'s|’s|s|is|was|are|were|'re)\s+)?(?:my|our)\s+"
    r"(?:\w+\s+){{0,2}}?({rel})\b"
    # "the wife", "the missus": a spouse named by the article ("The wife is the brains").
    r"|\bthe\s+(wife|missus|husband|hubby)\b(?!\s+of\b)"
)
_RU_SAID = (
    r"\b(?:он|она)\s+(?:мой|моя|наш|наша)\s+(?:\w+\s+)?(\w+)"
    r"|\b(\w+)\s+(?:мой|моя|наш|наша)\b(?-i:(?!\s+[А-ЯЁ]))"
    r"|\b(?:мой|моя|наш|наша|мои|наши)\s+(\w+)(?:\s+(\w+))?"
)


@cache
def _said_pattern(language: str, relation_words: tuple[str, ...]) -> re.Pattern[str]:
    if language == "ru":
        return re.compile(_RU_SAID, re.IGNORECASE)
    words = "|".join(re.escape(w) for w in sorted(relation_words, key=len, reverse=True))
    return re.compile(_EN_SAID.format(rel=words), re.IGNORECASE)


_OF_A_THING = re.compile(r"\b(?:that|this|it|there)\s*(?:'s|’s|s|\s+is|\s+was)\s*$", re.I)
# A kin word or a doctor said apart from the name names the person only in apposition ("annoyingly
# wise, my sister") or after "he's": "promised my mum id paint her hall", "share a room w my
# cousin" and "my mum says" speak of someone else, nearly always unnamed.
_APPOSITION_BEFORE = re.compile(r"(?:^|[,:;(—–-])\s*$")
_PRONOUN_FIRST = re.compile(r"(?:he|she|they)\b", re.IGNORECASE)


def _said_apart(text: str, cues: LanguageCues) -> list[tuple[str, int, int]]:
    """Relation words said of someone apart from a name, with their spans."""
    pattern = _said_pattern(cues.language, tuple(cues.relations))
    found = []
    for match in pattern.finditer(text):
        if _OF_A_THING.search(text[: match.start()]):
            continue  # "that's my neighbour. Anna thinks so too": said of someone unnamed
        # The first group that holds a relation word ("мой друг детства", "мой лучший друг").
        for group in range(1, (pattern.groups or 0) + 1):
            relation = _relation_word(match.group(group), cues) if match.group(group) else None
            if relation is not None:
                if (
                    cues.language != "ru"
                    and relation in _SAID_OF_ANYONE
                    and not _PRONOUN_FIRST.match(match.group(0))
                    and not _APPOSITION_BEFORE.search(text[: match.start()])
                ):
                    break
                found.append((relation, match.start(group), match.end(group)))
                break
    return found


def _relation_word(word: str, cues: LanguageCues, beside: str = "") -> str | None:
    """The relation a word says; a Russian one said beside a name is read in the name's case
    where the word has readings in several ("Олегу, супругу": husband; "Люду, супругу": wife)."""
    lowered = word.casefold()
    if lowered in cues.relations:
        return cues.relations[lowered]
    if cues.language != "ru":
        return None
    _, _, morph, _ = ru.russian_tools()
    parses = morph.parse(lowered)[:2]
    if beside:
        cases = {p.tag.case for p in morph.parse(beside.casefold()) if "Name" in p.tag}
        parses.sort(key=lambda p: p.tag.case not in cases)
    for parse in parses:
        forms = [str(parse.normal_form)]
        grammemes = set(parse.tag.grammemes)
        if {"ADJF", "femn"} <= grammemes:
            # "с благоверной моей": an adjective's dictionary form is masculine (благоверный).
            feminine = parse.inflect({"Nom", "Sing", "Fem"})  # natasha takes UD names
            forms.insert(0, str(feminine.word) if feminine else forms[0])
        elif {"NOUN", "femn"} <= grammemes:
            # "Люду, супругу мою": the dictionary files супруга under супруг; the word's own
            # nominative keeps its gender.
            feminine = parse.inflect({"Nom", "Sing"})
            forms.insert(0, str(feminine.word) if feminine else forms[0])
        for form in forms:
            relation = cues.relations.get(form)
            if relation:
                return relation
    return None


# Working together said of the one person the message names: a colleague.
_WORK_TOGETHER = re.compile(
    r"\b(?:вместе\s+работа(?:ем|ли)|работа(?:ем|ли)\s+(?:вместе|в паре)|в паре\s+работа(?:ем|ли)"
    r"|бок о бок|(?:we|i)\s+(?:used to\s+)?work(?:ed)?\s+together"
    # Where the user works, as "ours": "у нас в бригаде новый парень Артур", "Денис у нас
    # сеньор", "the new girl on my team".
    r"|у (?:нас|меня) (?:в|на) (?:бригад|салон|команд|экипаж|бухгалтери|офис|отдел|смен|цех"
    r"|работ|склад|завод|кухн|процедурн)\w*|(?:on|in) (?:my|our) (?:team|crew|shift|ward|unit)"
    r")\b",
    re.IGNORECASE,
)


def _relations_apart(
    text: str, mentions: list[PersonMention], cues: LanguageCues
) -> list[PersonMention]:
    """The one person a message names without a relation, given the one relation said of
    someone apart from any name; and couples told with the name."""
    mentions = [
        PersonMention(m.name, "ex", m.start, m.end)
        if m.relation in (None, "partner", "girlfriend", "boyfriend", "wife", "husband")
        and (_broke_up_with(text, m) or _done_with(text, m))
        else PersonMention(m.name, _dating(text, m, cues), m.start, m.end)
        if m.relation is None and _together_with(text, m)
        else m
        for m in mentions
    ]
    unsaid = [i for i, m in enumerate(mentions) if m.relation in (None, _TITLED_DOCTOR)]
    if len({mentions[i].name for i in unsaid}) != 1:
        return mentions
    lone = mentions[unsaid[0]]
    made = _MADE_PARTNER.search(text)
    if made and len({m.name for m in mentions}) == 1:
        # "eoin asked me to be his girlfriend": he is the user's boyfriend.
        relation: str | None = (
            "boyfriend" if made.group("whose").casefold() == "his" else "girlfriend"
        )
    elif _WE_BROKE_UP.search(text) and len({m.name for m in mentions}) == 1:
        relation = "ex"
    else:
        free = {
            relation
            for relation, start, end in _said_apart(text, cues)
            if not any(m.start <= start < m.end for m in mentions)
        }
        relation = next(iter(free)) if len(free) == 1 else None
        if not free:
            loose = _loose_relations(text, mentions, cues)
            relation = next(iter(loose)) if len(loose) == 1 else None
        if not free and not loose and _WORK_TOGETHER.search(text):
            relation = "colleague"  # "мы с ней вместе работаем", "we work together"
    if relation is None:
        return mentions
    return [
        PersonMention(m.name, relation, m.start, m.end) if m.name == lone.name else m
        for m in mentions
    ]


# Whose relative or colleague a relation word names when it is not the user's: "Tomás's sister",
# "her brother", "его жена".
_ANOTHERS = frozenset(
    "his her their its 's ’s его её ее их неё нее него них ихний ихняя ихнего ихней ихнему".split()
)
# A Russian possessive adjective of a name ("Тамарин сын", "Колькина жена", "Полининого брата").
_NAME_POSSESSIVE = re.compile(r"^([а-яё]+)[иы]н(?:а|о|ы|ой|ого|ому|ым|ую)?$")
# Kin words said without a name are nearly always of someone unnamed ("mum cried, gary cried"),
# and so are a doctor's ("went to the doctor", "ортопед запретил"): these name the lone person
# only when said beside the name (`_relation_near`).
_SAID_OF_ANYONE = frozenset(
    "mother father grandmother grandfather aunt uncle sister brother cousin".split()
    + ["doctor", "therapist"]
)


# Russian speaks of its own child or spouse with a bare preposition ("без сына я не хочу", "мы с
# женой"), where a client or a friend so said may be anyone's; "Аня с мужем переезжает" and
# "уезжает к мужу" are hers, so only "с"/"без" after no name, in a sentence the user is in.
_HOUSEHOLD = frozenset({"son", "daughter", "wife", "husband"})
_FIRST_PERSON_RU = re.compile(r"\b(?:я|мы|меня|мне|мной|нас|нам|нами)\b", re.IGNORECASE)


def _own_household(
    text: str, tokens: list[Token], i: int, relation: str, mentions: list[PersonMention]
) -> bool:
    if (
        relation not in _HOUSEHOLD
        or i < 1
        or tokens[i - 1].text.casefold() not in ("с", "со", "без")
    ):
        return False
    if i >= 2 and any(m.start <= tokens[i - 2].start < m.end for m in mentions):
        return False
    start = max(text.rfind(mark, 0, tokens[i].start) for mark in ".!?\n")
    ends = [e for e in (text.find(mark, tokens[i].end) for mark in ".!?\n") if e >= 0]
    return bool(_FIRST_PERSON_RU.search(text[start + 1 : min(ends, default=len(text))]))


def _adjective_before_noun(word: str, after: str, cues: LanguageCues) -> bool:
    if cues.language != "ru" or not after:
        return False
    _, _, morph, _ = ru.russian_tools()
    tag = morph.parse(after)[0].tag
    return "NOUN" in tag or "ADJF" in tag


# Before a relation word, these make it anyone's or no one's: "a client dinner", "same buddy",
# "с клиентом чуть не подрался", "к своей подружке".
_ANY_ONE = ru.PREPOSITIONS_RU | frozenset(
    "a an same any every свой своя свою своей своего своему своим своих своими".split()
)
_OTHER_FORM = re.compile(r"^друг(?:а|у|ом|е)?$")
_OF_A_THING_NEAR = re.compile(
    r"\b(?:that|this|it|there)\s*(?:'s|’s|s\b|\s+is\b|\s+was\b)|\bэто\b", re.IGNORECASE
)


# Words before a relation word that make it a verb ("i help coach", "wants to date"), and
# nouns after it that make it a modifier ("the client bit", "coach trip").
_DOER_BEFORE = frozenset(
    "i we you they to help helps helped will can could gonna wanna would should".split()
)
_COMPOUND_AFTER = frozenset(
    "meeting meetings presentation presentations call calls visit visits bit side work list "
    "account accounts appointment appointments training trip trips station party stuff thing "
    "things group chat night evening day session sessions brief".split()
)
# Relations that are also what someone does for a living, and what says someone does it.
_WORK_ROLES = frozenset({"teacher", "doctor", "therapist", "client", "manager", "boss"})
_SOMEONES_ROLE = re.compile(
    r"\b(?:(?:is|was|'s|’s|s|hes|shes|are|be)\s+an?|(?:i'm|im|i am)\s+(?:an?|the))"
    r"\s+(?:[\w-]+\s+){0,3}$",
    re.IGNORECASE,
)
# Words between an owner and the relation word ("mums best friend").
_QUALIFIERS = frozenset("best old oldest close closest good new little big".split())


def _possessive(word: str) -> str:
    """ "mums" / "mum's" read as the possessive it is ("'s"), other words as they are."""
    lowered = word.casefold()
    if lowered.endswith(("'s", "’s")) or (lowered.endswith("s") and lowered[:-1] in _PARENT_WORDS):
        return "'s"
    return lowered


_PARENT_WORDS = frozenset("mum mom mam dad da ma pa mama papa mother father".split())


_A_ROLE = re.compile(
    r"\b(?:promoted to|as|became|become|becoming|made|hired|назначили|работает)"
    r"\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)


def _plural(word: str, cues: LanguageCues) -> bool:
    if cues.language != "ru":
        return False
    _, _, morph, _ = ru.russian_tools()
    return "plur" in morph.parse(word.casefold())[0].tag


def _of_another(word: str) -> bool:
    lowered = word.casefold()
    if lowered in _ANOTHERS:
        return True
    owner = _NAME_POSSESSIVE.match(lowered)
    if owner is None:
        return False
    stem = owner.group(1)
    # "Иркин", "Колькина": the owner's diminutive in -ка, read by its plain name (Ира, Коля).
    stems = (stem, stem[:-1], stem[:-2]) if stem.endswith("к") else (stem,)
    return any(is_first_name(s + end) for s in stems for end in "ая" if len(s) >= 2)


# "ex" before a trade or a service is a prefix ("ex marine, never raises his voice").
_EX_A_TRADE = re.compile(
    r"ex[\s-]+(?:marines?|army|navy|military|forces|raf|para|soldier|cop|police\w*|con|convict"
    r"|pro|footballer|boxer|fighter|firefighter|fireman|nurse|teacher|miner|trucker|smoker"
    r"|drinker|addict|banker|chef|mechanic|sailor|pilot|officer|detective)\b",
    re.IGNORECASE,
)


def _loose_relations(text: str, mentions: list[PersonMention], cues: LanguageCues) -> set[str]:
    """Relation words anywhere in the message, said of no named person and owned by no one
    else ("начальница в Бублике, Света"; "best boss ive ever had"; "подруга года"): issue 34's
    writers say who someone is wherever it falls in the sentence, not only beside the name."""
    tokens = tokenize(text)
    quoted = list(QUOTED.finditer(text))
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if any(m.start <= token.start < m.end for m in mentions):
            continue
        relation = _relation_word(token.text, cues)
        if relation is None:
            continue
        before = tokens[i - 1].text.casefold() if i else ""
        after = tokens[i + 1].text.casefold() if i + 1 < len(tokens) else ""
        if before in _DOER_BEFORE or after in _COMPOUND_AFTER:
            continue  # "i help coach his team", "the client bit": a verb or a noun's modifier
        if relation in _WORK_ROLES and _SOMEONES_ROLE.search(text[: token.start]):
            continue  # "hes an art teacher", "im the first base coach": what they do (not
            # "he's the only manager there", "hes the best customer i got")
        if before in _QUALIFIERS and i > 1 and _of_another(_possessive(tokens[i - 2].text)):
            continue  # "mums best friend": another's
        # ... but a Russian "психолог" in a message that names one person is theirs ("нашла
        # психолога, Ксения"; "хожу к психологу, к Марине Олеговне").
        ru_therapist = relation == "therapist" and cues.language == "ru"
        if (relation in _SAID_OF_ANYONE and not ru_therapist) or _of_another(before):
            continue
        if _GUY_OR_GIRL.match(token.text) and before not in _OWNED_PARTNER:
            continue  # "золотой парень": a good guy, no one's boyfriend
        if (
            before in _ANY_ONE
            and not (ru_therapist and before in ("к", "у"))
            and not _own_household(text, tokens, i, relation, mentions)
        ):
            continue  # "с клиентом" is anyone's client; "без сына я не хочу" the user's own
        if i and any(m.start <= tokens[i - 1].start < m.end for m in mentions):
            continue  # "callums girlfriend"
        if after in ("in", "of") or _OTHER_FORM.match(after) or _OTHER_FORM.match(before):
            continue  # "son in law", "the wife of his boss", "друг друга"
        if _OF_A_THING_NEAR.search(text[tokens[max(i - 3, 0)].start : token.start]):
            continue  # "that's my neighbour. Anna thinks so too": said of someone unnamed
        if _plural(token.text, cues) or any(q.start() <= token.start < q.end() for q in quoted):
            continue  # "соседи"; "calls everybody 'pal'"
        if _A_ROLE.search(text[: token.start]):
            continue  # "got promoted to team lead", "hired as a coach": a job, no one's relation
        if relation == "ex" and (
            _adjective_before_noun(token.text, after, cues) or _EX_A_TRADE.match(text, token.start)
        ):
            continue  # "папа бывший налоговик", "ex marine": a former trade, no one's ex
        found.add(_qualified(relation, tokens, i))
    return found


# "the old man next door, Mr Douglas": the neighbour named after where they live.
_NAMED_AFTER_WHERE = re.compile(
    r"\b(?:next door|downstairs|upstairs|across the (?:hall|road|street)),\s*"
    r"(?:(?:mr|mrs|ms|miss|dr)\.?\s+)?$",
    re.IGNORECASE,
)
# "my flatmates are Chloe and Ravi", "my cousins, Jo and Em": each named is one of them.
# ... "our boys Chidi (16) and Tobenna (7)", "two boys Osian (13) and Macsen (9)".
_LISTED_AFTER = re.compile(
    r"\b(?:my|our|two|three|four) ([a-z]+?)s(?:\s+are|\s*[,:])?\s+"
    r"(?:[A-Z][a-z]+(?:\s*\(\d+\))?(?:\s*,\s*|\s+and\s+|\s*&\s*))*$"
)
_CHILDREN = {"boy": "son", "girl": "daughter"}


def _listed_after(before: str, relation_of: Any) -> str | None:
    said = _LISTED_AFTER.search(before)
    if said is None:
        return None
    relation: str | None = relation_of(said.group(1))
    if relation is None and not said.group(0).casefold().startswith("my "):
        # "our boys", "two boys": sons; "my boys" may as well be the user's mates.
        relation = _CHILDREN.get(said.group(1).casefold())
    return relation


# "Mrs Grant, one of our clients,": one of the user's, by the plural relation word.
_ONE_OF = re.compile(r"^\s*,?\s+(?:is\s+)?one of (?:my|our) (\w+?)s\b", re.IGNORECASE)


# A lowercase word ending as a verb with its "g" dropped does ("leavin", "fixin", "sayin");
# names so ending ("kevin", "erin") are listed.
_G_DROPPED = re.compile(r"^[a-z]{2,}[^aeiou\W]in$")


def _english(
    text: str,
    cues: LanguageCues,
    known: frozenset[str],
    likely: frozenset[str] = frozenset(),
    possible: frozenset[str] = frozenset(),
) -> list[PersonMention]:
    tokens = tokenize(text)
    found: list[PersonMention] = []
    names = gazetteer()
    place_end = -1  # where the last capitalised word read as a place ends, plus one
    # Multi-word relation words ("best friend") are read by their last word.
    single = {w.split()[-1]: r for w, r in cues.relations.items()}

    def relation_of(word: str) -> str | None:
        return single.get(word.casefold())

    for i, token in enumerate(tokens):
        word = token.text
        key = word.casefold()
        if word in cues.not_names or key in _SKIP or key in _TITLES or key in single:
            continue
        if key in _ENDEARMENTS and i and tokens[i - 1].text.casefold() == "my":
            continue  # "my lassie kirsty": the word says who, the name follows
        social = bool(cues.name_after and cues.name_after.search(text[: token.start]))
        numbered = (
            i + 1 < len(tokens)
            and tokens[i + 1].text.isdigit()
            and text[token.end : tokens[i + 1].start].isspace()
        )
        titled_kin = bool(i and relation_of(tokens[i - 1].text))  # "coach Ray 61 and still"
        if numbered and not social and not titled_kin:
            continue  # "Ward 9", "Year 7": a place or a time ("with jake 2 days ago": a person;
            # "my buddy gary. 35 years.": a name, the number in the next sentence)
        if i and tokens[i - 1].text.casefold() in _PLACE_TITLES and key not in known:
            continue  # "St Mary's", "Lake Harriet", "San Antonio": a place named after someone
        following_word = tokens[i + 1].text.casefold() if i + 1 < len(tokens) else ""
        if following_word == "day" or (
            i + 2 < len(tokens)
            and tokens[i + 2].text.casefold() == "day"
            and CAPITALISED.match(tokens[i + 1].text)
        ):
            continue  # "Louis Riel Day", "terry fox day": a holiday
        if _a_firm(text, token, names):
            continue  # "Garza & Whitfield", "Hollis & Price": a firm
        neighbours = {
            t.text.casefold().removesuffix("'s")
            for t in tokens[max(i - 1, 0) : i + 2]
            if text[min(t.end, token.end) : max(t.start, token.start)].strip() == ""
        }
        if neighbours & _HOLIDAYS or (key.startswith("valentine") and "happy" in neighbours):
            continue  # "Merry Christmas", "Christmas Eve", "happy valentines"
        if key in _PLACE_NOUNS and i and CAPITALISED.match(tokens[i - 1].text):
            continue  # "Myrtle Beach"
        before, after = text[: token.start], text[token.end :]
        at_start = bool(_SENTENCE_START.search(before))
        greeted = _greeted(text, tokens, i)
        called = bool(_AFTER_COMMA.search(before) and _CLAUSE_END.match(after))
        if key not in known and ((at_start and _SPEAKER.match(after)) or greeted or called):
            continue  # "Caroline: hey!", "hey Mel!", "that's great, Caroline!": speaker, addressee
        capitalised = bool(CAPITALISED.match(word))
        owner = i + 1 < len(tokens) and tokens[i + 1].text == "'s"
        listed = names.name_of(word, inside=capitalised and not at_start, marked=owner)
        titled = i > 0 and tokens[i - 1].text.casefold() in _TITLES and word.isalpha()
        read_as_name = key in likely  # the reader of words takes it for a person's name
        if not capitalised and listed is None and _G_DROPPED.match(key):
            continue  # "leavin friday", "grinnin like a fool": a verb with its "g" dropped
        if (
            not capitalised
            and listed is None
            and not titled
            and key not in known | likely
            and not (
                key in possible
                and word.isalpha()
                and not (i and tokens[i - 1].text.casefold() in ("the", "a", "an"))  # "the lad"
                and _said_to_be_someone(text, tokens, i, relation_of)
            )
        ):
            continue
        relation, start, end = _relation_near(text, tokens, i, relation_of)
        relation = relation or _group_relation(after) or _endearment(before, after)
        relation = relation or _group_relation(_AND_ANOTHER.sub("", after, count=1))
        relation = relation or _listed_after(before, relation_of)
        relation = relation or _child_by_order(text, before, after)
        relation = relation or _named_as(before, relation_of)
        relation = relation or _group_before(before)
        one_of = _ONE_OF.match(after)
        relation = relation or (relation_of(one_of.group(1)) if one_of else None)
        if relation is None and _NAMED_AFTER_WHERE.search(before):
            relation = "neighbour"  # "the lady next door, mrs costa"
        if (
            relation is None
            and (listed or titled or read_as_name)
            and _WHERE_THEY_LIVE.match(after)
        ):
            relation = "neighbour"  # "Mrs Dalgleish downstairs" (not "Lady across the hall")
        # "at Leah's" is hers, "at Lowe's" a shop: only a known first name owns the place.
        place_like = (
            bool(_PLACE_BEFORE.search(before))
            and not _TO_SOMEONE.search(before)
            and not (owner and listed)
        ) or (i > 0 and tokens[i - 1].end == place_end)  # "to Memorial Hermann": one place
        if place_like and capitalised:
            place_end = token.end + 1  # a capitalised word after it, one space on, is the same
        if place_like and i and tokens[i - 1].text.casefold() == "the" and relation is None:
            continue  # "at the Galleria", "to the Royal"
        following = tokens[i + 1].text.casefold() if i + 1 < len(tokens) else ""
        if following in _PLACE_NOUNS or (i and tokens[i - 1].text.casefold() == "the"):
            listed = None  # "Myrtle Beach", "Sydney Road", "the King's Birthday"
        verb_after = cues.name_before.match(after) if cues.name_before else None
        if verb_after and at_start and _WEAK_AFTER.match(after):
            verb_after = None  # "Work is crazy": any sentence opens with a capital
        person_like = (
            key in known
            or read_as_name
            or titled
            or relation is not None
            or (capitalised and bool(_DATING_BEFORE.search(before)))
            or bool(_DATING_AFTER.match(after))
            or (listed is not None and not place_like)
            or (capitalised and not place_like and verb_after is not None)
            or (
                capitalised
                and not at_start
                and bool(cues.name_after and cues.name_after.search(before))
            )
        )
        if person_like:
            name = listed or (word if capitalised else word.capitalize())
            possessive = word.islower() and not (owner or titled)
            if listed is None and possessive and _possessive_of_a_name(key):
                name = key[:-1].capitalize()  # "jordans sign": Jordan's, typed without "'"
            surname = _surname(text, tokens, i, cues) if listed is not None else None
            if surname is not None:  # "Barb Keller runs the pantry"
                name, end = f"{name} {surname.text}", max(end, surname.end)
            found.append(PersonMention(name, relation, start, end))
    return found


_NOT_SURNAMES = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december christmas easter".split()
)


def _surname(text: str, tokens: list[Token], i: int, cues: LanguageCues) -> Token | None:
    """The capitalised word right after a listed first name, when it reads as a surname ("Carol
    Dietz"; not "Linda Monday", "Emma I", "Jake Street"): only a space between them."""
    if i + 1 >= len(tokens):
        return None
    after = tokens[i + 1]
    key = after.text.casefold()
    if not CAPITALISED.match(after.text) or not text[tokens[i].end : after.start].isspace():
        return None
    if key in _NOT_SURNAMES or key in _SKIP or key in _PLACE_NOUNS or key in _TITLES:
        return None
    if after.text in cues.not_names or key in cues.relations:
        return None
    return after


def _names_next(tokens: list[Token], at: int) -> bool:
    """A capitalised name right after the relation word at tokens[at] (a possessive between)."""
    k = at + 1
    if k < len(tokens) and tokens[k].text.casefold() in ("мой", "моя", "наш", "наша"):
        k += 1  # not "начальник нашего Управления"
    return k < len(tokens) and bool(_CYRILLIC_CAPITALISED.match(tokens[k].text))


def _russian(text: str, cues: LanguageCues, known: frozenset[str]) -> list[PersonMention]:
    segmenter, ner, morph, doc_type = ru.russian_tools()
    doc = doc_type(text)
    doc.segment(segmenter)
    doc.tag_ner(ner)
    tagged = {(s.start, s.stop) for s in doc.spans if s.type == "PER"}
    tokens = tokenize(text)

    def relation_of(word: str) -> str | None:
        return _relation_word(word, cues)

    found: list[PersonMention] = []
    owned: set[str] = set()  # names read from a possessive adjective ("Олина" -> Оля)
    joined: set[int] = set()  # patronymics read with the name before them
    for i, token in enumerate(tokens):
        if i in joined:
            continue  # "вадима олеговича": Олегович is part of the name, not one of his own
        word = token.text
        shouted = word.isupper() and len(word) > 2
        if shouted:
            word = word.capitalize()  # "ОЛЯ ДОВОЛЬНАЯ": shouted, still a name
        # "Олина мама", "Серёгина Танька": Оля's, Серёга's; "Гулин брат", "Рубенова ресторана"
        adjacent = i + 1 < len(tokens) and text[token.end : tokens[i + 1].start].isspace()
        noun_next = tokens[i + 1].text if adjacent else ""
        owner = (
            (
                ru.owner(word, morph, noun_next)
                if _owns_what_follows(text, tokens, i, morph)
                else None
            )
            or _owner_before_noun(text, tokens, i, morph)
            or (ru.owner_before_noun(word, noun_next, morph) if noun_next else None)
        )
        lowercase = word.islower()
        if lowercase or shouted:
            # A shouted word is read as a lowercase one: "НА ПОСТОЯНКУ" is emphasis, not a
            # surname; "КАМИЛА" is Камила.
            before = tokens[i - 1].text if i else ""
            name = (
                owner
                or ru.lowercase_first_name(word.casefold(), morph, before)
                or ru.standalone_patronymic(tokens, i, word, morph)
                or _named_beside_relation(text, tokens, i, morph, relation_of)
                or ru.lowercase_surname(word.casefold(), morph)
                or ru.name_before_its_verb(word.casefold(), tokens, i, morph)
                or ru.diminutive_of_a_name(word, morph)
            )
            if name is None:
                continue
        elif not CAPITALISED.match(word) or word in cues.not_names or relation_of(word):
            continue  # "Доченька Соня": the relation word opening the sentence is not a name
        elif (not i or ru.patronymic(tokens[i - 1].text, morph) is None) and ru.patronymic(
            word, morph
        ):
            # Joined to the name before it, or a man called by his patronymic alone
            # ("шефу нашему Михалычу", "Палыч"), a name of its own.
            name = ru.standalone_patronymic(tokens, i, word, morph)
            if name is None:
                continue
        else:
            # A diminutive the dictionary lacks, before its guesses ("Полинкой": Полинка).
            name = (
                owner
                or ru.diminutive_of_a_name(word, morph)
                or ru.first_name(
                    word,
                    morph,
                    tokens[i - 1].text if i else "",
                    bool(_SENTENCE_START.search(text[: token.start]))
                    or ru.verb_follows(tokens, i + 1, morph),
                )
            )
        in_ner = any(start <= token.start < stop for start, stop in tagged)
        if not (name or in_ner) and _unknown_with_relation(text, tokens, i, morph, relation_of):
            name = word  # "Драган, мой руководитель": a name no dictionary holds, said to be one
        if name is None and (not in_ner or ru.not_a_noun(word, morph)):
            continue
        previous = tokens[i - 1].text if i else ""
        if previous.isdigit():  # "18 Марта" is a date, not Marta
            continue
        if (
            owner is None
            and previous.casefold() in _WHERE_TO
            and word.casefold() not in known
            and (
                not morph.word_is_known(word.casefold())
                or not any("Name" in p.tag for p in morph.parse(word.casefold()))
                or ru.more_a_place(word, morph, previous.casefold() in _IN_OR_FROM)
                or (previous.casefold() in ("в", "во") and _only_locative(word, morph))
            )
        ):
            # "на Бекетова", "в Земуне", "в Леруа": a street, a place, a shop; "в Вене", "из
            # Питера": a city before a name
            continue
        relation, start, end = _relation_near(text, tokens, i, relation_of)
        if relation is not None and i and start == tokens[i - 1].start:
            if not ru.cases_agree(tokens[i - 1].text, word, morph):
                relation = None  # "учительница мирона": Мирон's teacher, not the user's
        at_start = bool(_SENTENCE_START.search(text[: token.start]))
        if at_start and _SPEAKER.match(text[token.end :]) and word.casefold() not in known:
            continue  # "Оля: привет!": who speaks, not whom the message is about
        sure = lowercase or shouted or owner is not None or in_ner
        if name is not None and at_start and not sure and name.casefold() not in known:
            # Sentence-initial capitals are every word's; a dictionary name there needs a verb
            # after it ("Марта напомнила") or a relation word by it ("Марта — моя коллега").
            following = tokens[i + 1].text if i + 1 < len(tokens) else ""
            verb = any("VERB" in p.tag for p in morph.parse(following)[:1])
            grouped = _group_relation(text[token.end :])  # "Ира с работы — дизайнер"
            clear = ru.lowercase_first_name(word.casefold(), morph) is not None
            if (
                not verb
                and not clear
                and relation is None
                and relation_of(following) is None
                and not grouped
            ):
                continue
        full = name or ru.diminutive_nominative(word, morph) or word
        after = i + 1
        if owner is None and i + 1 < len(tokens):
            patronymic = ru.patronymic(tokens[i + 1].text, morph)
            if patronymic:
                full, end, after = f"{full} {patronymic}", max(end, tokens[i + 1].end), i + 2
                joined.add(i + 1)
                if relation is None:  # "Ирина Михайловна, наша начальница": after the full name
                    relation, _, said_end = _relation_near(text, tokens, i + 1, relation_of)
                    end = max(end, said_end)
        if relation is None and owner is None:
            # "Катя сеструха младшая", "Гена начальник гаража", "Оля, жена моя", "Рустам с работы";
            # not "у насти мама" (her mother) or "Алина, девушка Тимура" (his girlfriend).
            mine = after + 1 < len(tokens) and tokens[after + 1].text.casefold() in _MY_OBLIQUE
            # "у насти мама" is hers; "у димы одногруппника", the word in the name's own case,
            # is Dima himself.
            apposed = (
                after < len(tokens)
                and previous.casefold() == "у"
                and _in_its_oblique_case(tokens, i, after, morph, relation_of)
            )
            theirs = not mine and (
                (previous.casefold() == "у" and not apposed) or _of_a_name(tokens, after + 1, morph)
            )
            theirs = theirs or _owned_after(tokens, after, morph, relation_of)
            said = (
                _relation_word(tokens[after].text, cues, beside=tokens[i].text)
                if after < len(tokens) and not theirs
                else None
            )
            if said and (
                _names_next(tokens, after)
                or _SENTENCE_BREAK.search(text[tokens[after - 1].end : tokens[after].start])
            ):
                # "Вадим, подружка моя Наташа": Наташа's, the next one named; "Артур. парень
                # по имени ...": the next sentence's.
                said = None
            if said and not ru.same_case(tokens[i].text, tokens[after].text, morph):
                said = None  # "Гене кардиолог велела": Gena's doctor, not Gena
            if said:
                end = max(end, tokens[after].end)  # "шефиня наша" is hers, said of no one else
            said = _qualified(said, tokens, after) if said else None
            relation = said or _group_relation(text[end:])
        if relation is None and owner is None and _our_worker(tokens, i, after, morph):
            relation = "colleague"
        found.append(PersonMention(full, None if owner else relation, start, end))
        if owner is not None:
            owned.add(full)
    return _one_name_each(found, owned, text)


def _one_name_each(found: list[PersonMention], owned: set[str], text: str) -> list[PersonMention]:
    """One name for one person in a message: where the dictionary allows two forms ("витин":
    Вита's or Витя's; "амира": Амира or Амир's), the form the message also types as a word of
    its own settles it ("надо записать витю ... витин кардиолог" once "Витя" is read from
    "витю"; "тренер амира ... амир от него без ума"); a name read from a possessive yields to
    one read from a name."""
    words = {w.casefold().replace("ё", "е") for w in WORD.findall(text)}

    def typed(name: str) -> bool:
        return name.casefold().replace("ё", "е") in words

    settled = [m.name for m in found if m.name not in owned]
    named = []
    for mention in found:
        if not typed(mention.name):
            other = next(
                (
                    n
                    for n in settled
                    if _two_forms(n, mention.name) and (typed(n) or mention.name in owned)
                ),
                None,
            )
            if other is not None:
                mention = dataclasses.replace(mention, name=other)
        named.append(mention)
    return named


def _two_forms(one: str, other: str) -> bool:
    """Whether two readings differ only as a name's dictionary readings do: "-а" against "-я"
    (Вита, Витя) or a genitive's "-а" (Амира, Амир)."""
    a, b = one.casefold(), other.casefold()
    if a == b or " " in a + b or min(len(a), len(b)) < 3:
        return False
    swapped = a[:-1] == b[:-1] and {a[-1], b[-1]} == {"а", "я"}
    return swapped or a == b + "а" or b == a + "а"


def _owns_what_follows(text: str, tokens: list[Token], i: int, morph: Any) -> bool:
    """Whether the word may be a possessive adjective of a name: not a surname-like word after
    a preposition of place unless a noun, an adjective or a number comes right after it ("офис
    на Ленина, кофе": a street named after Lenin, not Лена's; "на Полинины 16" is hers). A
    possessive may follow its noun or stand for it ("Андрей Катин", "Тимошин выпускной")."""
    previous = tokens[i - 1].text.casefold() if i else ""
    if previous not in _WHERE_TO:
        return True
    if not any("Surn" in p.tag for p in morph.parse(tokens[i].text.casefold())):
        return True
    k = i + 1
    if k >= len(tokens) or not text[tokens[i].end : tokens[k].start].isspace():
        return False
    return morph.parse(tokens[k].text.casefold())[0].tag.POS in ("NOUN", "ADJF", "NUMR")


def _only_locative(word: str, morph: Any) -> bool:
    """Whether every reading of a word as a name is its prepositional case: after "в" that is
    where ("первый день в Нуре", a restaurant), where a person takes the accusative
    ("влюбилась в Колю")."""
    cases = {p.tag.case for p in morph.parse(word.casefold()) if "Name" in p.tag}
    return cases == {"loct"}


# Relations someone has by their work (and the user's), which Russian names in apposition.
_BY_TRADE = frozenset({"doctor", "therapist", "teacher", "boss", "manager", "colleague", "client"})


def _in_its_oblique_case(
    tokens: list[Token], i: int, after: int, morph: Any, relation_of: Any
) -> bool:
    """Whether the relation word after a name governed by "у" stands in apposition to it, in
    the genitive too and of the name's gender ("у димы одногруппника"). Kin and partners so
    placed are the name's own ("у Насти брата забрали", "у Кати мужа уволили": hers), as is
    anything before "нет" ("у кати брата нет")."""
    following = tokens[after + 1].text.casefold() if after + 1 < len(tokens) else ""
    if following == "нет" or relation_of(tokens[after].text) not in _APPOSED_AFTER_U:
        return False
    word = tokens[after].text.casefold()
    parses = morph.parse(word)
    if any(p.tag.case == "nomn" and p.score >= 0.3 for p in parses):
        return False
    genders = {p.tag.gender for p in morph.parse(tokens[i].text.casefold()) if "Name" in p.tag}
    return any(
        p.tag.case == "gent"
        and p.tag.POS == "NOUN"
        and "plur" not in p.tag
        and (not genders or p.tag.gender in genders or "ms-f" in p.tag.grammemes)
        for p in parses
    )


# Relations a word after "у <name>" may give the name itself: not kin, nor partners.
_APPOSED_AFTER_U = frozenset(
    {"classmate", "colleague", "friend", "neighbour", "roommate", "doctor", "teacher", "boss",
     "manager", "client", "therapist"}
)  # fmt: skip


# Prepositions of place: a capitalised word after one that no first name in the dictionary
# spells is where, not who (a surname or a word it does not hold: "на Бекетова", "в Земуне").
_WHERE_TO = frozenset({"в", "во", "на", "из", "до", "под", "за"})


_IN_OR_FROM = frozenset({"в", "во", "из"})


_OURS = frozenset({"наш", "наша", "нашу", "нашего", "нашей", "нашему", "нашим"})


# "у вадика, бригадира моего": after "у" the relation word is still the user's with "my".
_MY_OBLIQUE = _RUSSIAN_MY | {"моих", "нашу", "мою", "наших"}


def _owned_after(tokens: list[Token], at: int, morph: Any, relation_of: Any) -> bool:
    """Whether the relation word at tokens[at], after a name, is another's: "Нинка бывшая
    его", "Нина бывшая жена Валеры" (the ex-wife of Валера's)."""
    if at + 1 >= len(tokens):
        return False
    following = tokens[at + 1].text.casefold()
    if following in _ANOTHERS:
        return True
    if not relation_of(following) or at + 2 >= len(tokens):
        return False
    owner = morph.parse(tokens[at + 2].text.casefold())
    return any({"Name", "gent", "sing"} <= set(p.tag.grammemes) for p in owner)


def _of_a_name(tokens: list[Token], at: int, morph: Any) -> bool:
    """Whether tokens[at] is a first name in the genitive ("девушка Тимура", "жена гора")."""
    if at >= len(tokens):
        return False
    parses = morph.parse(tokens[at].text)[:2]
    return "NOUN" in parses[0].tag and any({"Name", "gent"} <= set(p.tag.grammemes) for p in parses)


# Kin the guide's list has no word for (in-laws, nephews, grandchildren, godchildren): "ours",
# but no one the user works with.
_INLAW_STEM = re.compile(
    r"^(?:невестк|сноха$|свекров|свёкор$|свекор$|тёщ|тещ|тесть$|зять$|шурин$|деверь$|золовк"
    r"|своячениц|племянни|внук|внучк|крестни|крёстн|крестн|сват$|сватья$|отчим$|мачех|пасын"
    r"|падчериц)"
)


def _our_worker(tokens: list[Token], i: int, after: int, morph: Any) -> bool:
    """ "наш трудовик Сергей", "Леха, сварщик наш": a person by the user's "our" and a word for
    someone at work (an animate noun that is no relation word), as the writers label it."""

    def worker(word: str) -> bool:
        parse = morph.parse(word.casefold())[0]
        return (
            {"NOUN", "anim"} <= set(parse.tag.grammemes)
            and "Name" not in parse.tag
            and not _INLAW_STEM.match(str(parse.normal_form))  # "Оля, невестка наша": kin
        )

    def adjective(word: str) -> bool:
        return "ADJF" in morph.parse(word.casefold())[0].tag

    before = [t.text.casefold() for t in tokens[max(0, i - 2) : i]]
    if len(before) == 2 and before[0] in _OURS and worker(tokens[i - 1].text):
        return True
    if len(before) == 2 and before[1] in _OURS and worker(before[0]):
        return True  # "повар наш лёха"
    following = [t.text for t in tokens[after : after + 3]]
    if len(following) >= 2 and following[1].casefold() in _OURS and worker(following[0]):
        return True
    # "лёха наш повар", "Дима наш новый кондитер", "Вадим Сергеевич, наш молодой физик"
    if following and following[0].casefold() in _OURS:
        rest = following[1:]
        if rest and adjective(rest[0]) and len(rest) > 1:
            rest = rest[1:]
        return bool(rest) and worker(rest[0])
    return False


_SURNAME_LIKE_OWNER = re.compile(
    r"^(\w{2,}?)(ин|ов|ев)(а|у|ой|ы|ым|ом|ого|ому|ых)?$", re.IGNORECASE
)


def _owner_before_noun(text: str, tokens: list[Token], i: int, morph: Any) -> str | None:
    """A possessive the dictionary reads as a surname ("Гулин", "Егоркин", "Рубенова",
    "Андреева"), right before a common noun it owns ("Гулин брат", "Егоркин куратор", "из
    Рубенова ресторана", "Андреева жена"): the name it is made of. Before anything else it stays
    a surname ("Гулин сказал")."""
    match = _SURNAME_LIKE_OWNER.match(tokens[i].text)
    if (
        match is None
        or i + 1 >= len(tokens)
        or not text[tokens[i].end : tokens[i + 1].start].isspace()
    ):
        return None
    parses = morph.parse(tokens[i].text.casefold())
    if any("Name" in p.tag and "plur" not in p.tag for p in parses):
        return None  # "Марина", "Полина": a name of its own
    if tokens[i].text.islower() and ru.common_noun(parses):
        return None  # "машину солярис": a car; "Машин живот", "Тимин градусник": theirs
    following = morph.parse(tokens[i + 1].text.casefold())[0]
    if following.tag.POS != "NOUN" or {"Name", "Surn", "Patr"} & set(following.tag.grammemes):
        return None
    if not ru.agrees_with_noun((match.group(3) or "").casefold(), tokens[i + 1].text, morph):
        return None  # "у Ларионова отпуск": his genitive, the noun another case; a surname
    if i + 2 < len(tokens) and tokens[i + 2].text.casefold() in _RUSSIAN_MY:
        return None  # "Ефимов ортопед мой": the user's orthopaedist, Ефимов by surname
    stem, suffix = match.group(1).casefold(), match.group(2).casefold()
    bases = [stem + "а", stem + "я"] if suffix == "ин" else [stem, stem + "й"]
    if suffix == "ев":
        bases = [stem + "й", stem]  # "Андреева": Андрей's
    for base in bases:
        if any(
            "Name" in p.tag and "sing" in p.tag and "nomn" in p.tag and p.normal_form == base
            for p in morph.parse(base)
        ):
            return base.capitalize()
    return None


# Words before a name that make the two a place's name ("Lake Nokomis", "Mount Pleasant").
_PLACE_TITLES = frozenset({"st", "saint", "lake", "mount", "mt", "port", "fort", "san", "santa"})


def _possessive_of_a_name(key: str) -> bool:
    """A lowercase word read as a name that is a listed first name and an "s" ("jordans",
    "tylers"), when the word is no listed name itself ("marcos" is Marcos). Chat drops the
    apostrophe; a capitalised "Carys" or a titled "Dr Evans" is the name as typed."""
    names = gazetteer()
    return (
        len(key) >= 4 and key.endswith("s") and key[:-1] in names.names and key not in names.names
    )


def _name_possessive_unmarked(word: str) -> bool:
    """ "liams", "mitchs": a first name's possessive typed without its apostrophe."""
    if not (word.islower() and word.endswith("s") and len(word) >= 5):
        return False
    names = gazetteer()
    return word[:-1] in names.names and word[:-1] not in names.words and word not in names.names


def _unknown_with_relation(
    text: str, tokens: list[Token], i: int, morph: Any, relation_of: Any
) -> bool:
    """A capitalised word the dictionary does not know, with a relation word by it ("Драган,
    мой руководитель", "Вукашин — мой сосед"): a foreign name, not a common noun."""
    word = tokens[i].text
    if not _CYRILLIC_CAPITALISED.match(word) or morph.word_is_known(word.casefold()):
        return False  # a Latin word there is a company's or a place's ("Sary Bank, мой ...")
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is not None and text[tokens[i].end : nxt.start].isspace() and relation_of(nxt.text):
        return True  # "Витёк сосед опять ..." (not "вдоль Свислочи, врач велела")
    return _relation_near(text, tokens, i, relation_of)[0] is not None


def _named_beside_relation(
    text: str, tokens: list[Token], i: int, morph: Any, relation_of: Any
) -> str | None:
    """A lowercase word the name rules pass over, said to be someone by a relation word right
    beside it: "бабуля валя" (also a verb's gerund), "с дружбаном коляном", "ирка моя подруга",
    "вован кореш со школы", "жека мой препод" (nicknames no dictionary holds). After the
    relation word, the name's case must agree with it ("мама позвнила", a typo, is no one);
    before it, a word unknown to the dictionary must open its clause and end as no verb does."""
    word = tokens[i].text.casefold()
    if len(word) < 3 or not word.isalpha() or relation_of(word) or _of_another(word):
        return None  # "к бывшей жене" (a wife, not Женя), "иркин муж" (Ира's husband)
    parses = morph.parse(word)
    named = [p for p in parses if "Name" in p.tag and "plur" not in p.tag]
    before = i - 1 if i and tokens[i - 1].text.casefold() not in _RUSSIAN_MY else i - 2
    if not morph.word_is_known(word) and (_VERB_ENDING.search(word) or word.endswith("о")):
        return None  # "мама фоткала", "на жену переписанно": a verb or an adverb mistyped
    if before >= 0 and text[tokens[before].end : tokens[i].start].strip() in ("", "мой", "моя"):
        cases = {p.tag.case for p in morph.parse(tokens[before].text) if p.tag.case}
        if relation_of(tokens[before].text) and any(p.tag.case in cases for p in named):
            agreeing = [p for p in named if p.tag.case in cases]
            return str(max(agreeing, key=lambda p: float(p.score)).normal_form).capitalize()
    j = i + 1
    if j < len(tokens) and tokens[j].text.casefold() in _RUSSIAN_MY:
        j += 1  # "ирка моя подруга"
    said_after = (
        j < len(tokens)
        and text[tokens[i].end : tokens[j].start].strip(" ,") in ("", "мой", "моя")
        and relation_of(tokens[j].text) is not None
    )
    if not said_after:
        return None
    if morph.word_is_known(word):
        typed = [p for p in named if p.tag.case == "nomn" and p.normal_form == word]
        return word.capitalize() if typed else None
    opens = _SENTENCE_START.search(text[: tokens[i].start]) or _AFTER_COMMA.search(
        text[: tokens[i].start]
    )
    return word.capitalize() if opens and not _VERB_ENDING.search(word) else None


# How a Russian verb form ends (past, infinitive, reflexive, present): an unknown word ending so is
# a mistyped verb ("позвнила моя мама"), not a nickname ("жека", "витёк").
_VERB_ENDING = re.compile(r"(?:л[аио]?|ть|ти|с[яь]|[еи]т|[юя]т|[еи]м|[еи]шь)$")


# "at Leah's" is hers, not a place called Leah: a possessive is left to the people reader.
_AT_PLACE = re.compile(
    r"\b(?:at|in|joined|left|quit)\s+([A-Z][\w&-]+)\b(?!'s)|\b(?:в|во)\s+([A-Z][\w&-]+)"
)


def organisations(texts: Iterable[str]) -> frozenset[str]:
    """Capitalised words the user's words put after "at", "in", "joined" ("work at Initech",
    "interview at Globex"): places and companies, not people, wherever else they stand."""
    return frozenset(
        (m.group(1) or m.group(2)) for text in texts for m in _AT_PLACE.finditer(normalise(text))
    )


# The user introducing themselves: "I'm Walt", "name is Walt", "Я Олеся", "меня зовут Олеся".
_SELF_INTRO = re.compile(
    r"(?:\b(?:i'?m|i am|my name is|my name's|call me)|(?:^|[.!?,;:]\s*)(?:name is|name's)"
    r"|(?:^|[\s,.!?])(?:я|меня зовут|зовут меня))\s*$",
    re.IGNORECASE,
)
# A pet's name: "a beagle named Buster", "кот Бублик", "my dog, Rex".
_PET_BEFORE = re.compile(
    r"\b(?:dog|cat|puppy|kitten|beagle|labrador|terrier|poodle|spaniel|retriever|bulldog|pug|"
    r"husky|collie|hamster|parrot|rabbit|bunny|pony|horse|кот|кота|коту|котом|кошка|кошку|"
    r"кошки|кошкой|пёс|пес|пса|собака|собаку|собаки|собакой|щенок|щенка|котёнок|котенок|"
    r"попугай|хомяк)\s*,?\s+(?:(?:is\s+)?(?:named|called)\s+|по (?:имени|кличке)\s+)?$",
    re.IGNORECASE,
)


_SIGN_OFF = re.compile(r"\s*x{1,3}\s*$", re.IGNORECASE)


def _own_name(text: str, mention: PersonMention) -> bool:
    """The user's own name in a self-introduction: not a person the message tells of. Only a
    name typed in its dictionary form ("я Оле позвонил" is a call to Оля)."""
    typed = text[mention.start : mention.end]
    if typed.casefold() != mention.name.casefold() or text[mention.end :].startswith("'s"):
        return False
    if _SIGN_OFF.match(text, mention.end) and _SENTENCE_START.search(text[: mention.start]):
        return True  # "Happy Hogmanay! Bea x": the user signing off
    return bool(_SELF_INTRO.search(text[: mention.start]))


# A thing the user named: "a cactus called Kevin", "a 2014 corolla with 240k miles named bertha",
# "the truck is gonna be called Trompo Loco"; not a person so named ("a guy called Ben", "a realtor
# named Sandra", "a girl at the wall called Nadia": a preposition says where the person is).
_THING_NAMED = re.compile(
    r"\b(?:a|an|my|our|the)\s+(?:(?!(?:at|from|in|on|of|to|next|by|near|who|that)\b)[\w-]+\s+){0,2}?"
    r"(?P<noun>[a-z][\w-]*)(?:\s+with\s+(?:[\w-]+\s+){1,3}?)?\s*,?\s+(?:is\s+)?"
    r"(?:gonna\s+be\s+|going\s+to\s+be\s+)?(?:named|called)\s+$",
    re.IGNORECASE,
)
_PERSON_NOUNS = frozenset(
    "guy girl man woman men women lad lass boy bloke lady fella dude chap gent gentleman kid baby "
    "toddler teen teenager son daughter friend mate person one someone somebody fellow teacher "
    "nurse doctor surgeon dentist midwife carer colleague neighbour neighbor coach client customer "
    "patient student cousin brother sister uncle aunt nephew niece grandson granddaughter realtor "
    "ref referee agent vet plumber electrician builder lawyer solicitor manager boss tutor "
    "therapist counsellor counselor instructor trainer officer cop detective pastor priest vicar "
    "barber hairdresser mechanic driver landlord landlady boyfriend girlfriend husband wife "
    "partner fiance fiancee".split()
)


def _pet(text: str, mention: PersonMention) -> bool:
    if _PET_BEFORE.search(text[: mention.start]):
        return True
    thing = _THING_NAMED.search(text[: mention.start])
    if thing is None:
        return False
    # "a girl at the wall called Nadia": the person said just before the place she is at.
    said = [w.casefold() for w in WORD.findall(text[: thing.start()])[-3:]]
    return not ({thing.group("noun").casefold(), *said} & _PERSON_NOUNS)


def _with_yo(name: str, said: str) -> str:
    """The name with "ё" where the word it was read from has it, letter for letter."""
    folded = name.casefold().replace("ё", "е")
    for word in re.findall(r"\w+", said):
        if word.casefold().replace("ё", "е")[:3] == folded[:3]:
            return "".join(
                ("Ё" if c.isupper() else "ё")
                if k < len(word) and word[k] in "ёЁ" and c in "еЕ"
                else c
                for k, c in enumerate(name)
            )
    return name


def _as_written(mention: PersonMention, text: str) -> PersonMention:
    """ "Серега" stays as the user typed it; the dictionary would write "Серёга". A name read
    from the text with "ё" folded ("Артёмку" -> "Артемка") gets its "ё" back."""
    said = text[mention.start : mention.end]
    if "ё" in said.casefold() and "ё" not in mention.name.casefold():
        return dataclasses.replace(mention, name=_with_yo(mention.name, said))
    if "ё" in said.casefold() or "ё" not in mention.name.casefold():
        return mention
    plain = mention.name.replace("ё", "е").replace("Ё", "Е")
    return PersonMention(plain, mention.relation, mention.start, mention.end)


def find_people(
    text: str,
    cues: LanguageCues,
    known: Iterable[str] = (),
    *,
    not_people: Iterable[str] = (),
    likely: Iterable[str] = (),
    unlikely: Iterable[str] = (),
    possible: Iterable[str] = (),
) -> tuple[PersonMention, ...]:
    """Named people in `text`, first mention of each name, with the relation where one is said.

    `known`: names the user has already told of (person memories), found wherever they stand;
    `not_people`: words known to name places or companies (`organisations`); `likely` and
    `unlikely`: words (casefolded) a reader of words takes, or does not take, for a person's
    name in this text; `possible`: words it reads as a name often enough that one standing
    beside a relation word is one ("pete my running coach", "tita nene"). English only: Russian
    names have their dictionary and NER.
    """
    clean = normalise(text)
    known_names = frozenset(k.casefold() for k in known)
    excluded = frozenset(not_people) - {k for k in known if k}
    if cues.language == "ru":
        read = _russian(clean, cues, known_names)
    else:
        read = _english(
            clean,
            cues,
            known_names,
            frozenset(likely) - frozenset(_SKIP),
            frozenset(possible) - frozenset(_SKIP),
        )
        # A name the rules found that the reader of words reads as no one's ("Telekom says",
        # "Kreuzberg is one big party"); a name the user told of before always stands.
        not_names = frozenset(unlikely) - known_names
        read = [m for m in read if not all(p.casefold() in not_names for p in m.name.split())]
    mentions = [
        _as_written(m, text)
        for m in read
        if m.name not in excluded and not _own_name(clean, m) and not _pet(clean, m)
    ]
    said_at_last = {_THEIRS: None, _TITLED_DOCTOR: "doctor"}
    mentions = [
        PersonMention(m.name, said_at_last[m.relation], m.start, m.end)
        if m.relation in said_at_last
        else m
        for m in _relations_apart(clean, mentions, cues)
    ]
    best: dict[str, PersonMention] = {}
    for mention in mentions:
        seen = best.get(mention.name)
        if seen is None or (seen.relation is None and mention.relation is not None):
            best[mention.name] = mention
    return tuple(sorted(best.values(), key=lambda m: m.start))


@lru_cache(maxsize=4096)
def _people_of(text: str) -> tuple[PersonMention, ...]:
    return find_people(text, language_cues(detect_language(text)))


# Words without which no break-up reading can hold: a cheap gate before reading the people.
_PARTING = re.compile(
    r"\b(?:broke|break|split|splitting|ended|dumped|called|binned|separat\w*|divorc\w*|done|over"
    r"|through|finished|left|ghosted|расста\w*|растались|разош\w*|расход\w*|развел\w*|развод\w*"
    r"|вс[её]|бросил\w*|больше)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def broken_up_with(text: str) -> frozenset[str]:
    """The people `text` says the user has broken up with, by the readings that make a partner
    an ex ("me and Jake broke up", "rory ended it", "nadia and i called it a day", "мы с Толей
    расстались"; "we split up" with the one person the message names); not "my ex Tom", a
    relation said, nor "her and Sam broke up", another's."""
    clean = normalise(text)
    if not _PARTING.search(clean):
        return frozenset()
    mentions = _people_of(text)
    ended = {m.name for m in mentions if _broke_up_with(clean, m) or _done_with(clean, m)}
    if _WE_BROKE_UP.search(clean) and len({m.name for m in mentions}) == 1:
        ended.add(mentions[0].name)
    return frozenset(ended)


_ONLY_POSSESSIVE = re.compile(r"^\s*(?:\w+\s+)?$")


def _only_the_person(text: str, mention: PersonMention) -> bool:
    """`text` says nothing but who the person is: the mention, a possessive before it at most
    ("Моя сестра Аня", "My colleague Marta"), as the structured reader writes a person memory."""
    rest = text[mention.end :].strip(" .!…")
    return not rest and bool(_ONLY_POSSESSIVE.match(text[: mention.start]))


def same_person(a: str, b: str) -> bool:
    """Whether person memory `b`, which says nothing but who someone is, tells of the person
    memory `a` again: a name of each shares a key (`name_keys`: "Anya" / "Аня", "с Аней") and
    both say the same relation to the user ("My sister Anya", "Моя сестра Аня"). A name alone
    is not enough (two people may carry it), and a `b` that says more ("Моя сестра Аня
    переехала") is a statement of its own."""
    said = [m for m in _people_of(b) if m.relation is not None and _only_the_person(b, m)]
    if not said:
        return False
    for one in _people_of(a):
        if one.relation is None:
            continue
        keys = full_name_keys(one.name)
        for other in said:
            if other.relation == one.relation and keys & full_name_keys(other.name):
                return True
    return False
