"""Who a person a message names is to the user, as English and Russian both say it: a relation
word beside the name ("my colleague Marta", "сестра Аня", "Marta, my colleague", "Аня — моя
сестра") read with its qualifiers ("my work mate", "двоюродный брат", "first wife"), the group
the user knows them from ("Keisha from work", "Костя с работы"), and relation words said apart
from any name ("shes my girlfriend now", "начальница в Бублике, Света"). Another's relative
("her brother Tom", "Гулин брат") is marked `THEIRS`. Its own module because the English reader
(`people`) and the Russian one (`russian_people`) both read relations with it; it imports
neither."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from selfimprint.domain.structured import russian_names as ru
from selfimprint.domain.structured.cues import QUOTED, LanguageCues
from selfimprint.domain.structured.english_names import name_possessive_unmarked
from selfimprint.domain.structured.mentions import (
    CYRILLIC_CAPITALISED,
    SENTENCE_BREAK,
    PersonMention,
)
from selfimprint.domain.structured.morphology import is_first_name
from selfimprint.domain.structured.tokens import CAPITALISED, WORD, Token, tokenize

# The labelling guide's relations (tests/data/extraction/README.md): what a relation reader
# reads, beside NO_RELATION, a person named without a word for who they are to the user.
RELATIONS: tuple[str, ...] = (
    "aunt", "boss", "boyfriend", "brother", "classmate", "client", "colleague", "cousin",
    "daughter", "doctor", "ex", "father", "friend", "girlfriend", "grandfather", "grandmother",
    "husband", "manager", "mother", "neighbour", "partner", "roommate", "sister", "son",
    "teacher", "therapist", "uncle", "wife",
)  # fmt: skip
NO_RELATION = "none"

_TITLE_DOT = re.compile(r"\b(?:dr|mr|mrs|ms|prof)\.", re.IGNORECASE)  # "my teacher Ms. Alvarez"


_COPULAS = frozenset(
    {"is", "was", "'s", "been", "has", "had", "это", "a", "an", "the", "officially", "now",
     "теперь", "официально", "уже", "снова", "опять",
     # "Марина Олеговна, новая моя начальница": "new" before the possessive, as before the name.
     "новая", "новый", "новенькая", "новенький"}
)  # fmt: skip
# The Russian "my" / "our" forms both lists below read (the nominative and the oblique cases).
RUSSIAN_MY = frozenset(
    {"мой", "моя", "моего", "моей", "моему", "моим", "наш", "наша", "нашего", "нашей"}
)  # fmt: skip
# "Муж у меня Антон", "Сестра у меня Аня": the everyday Russian "my" stands after the word.
# ... and so does a "new" ("соседка новая, Зоя Павловна").
_BETWEEN = RUSSIAN_MY | {
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
# Kin words Russian speakers put before an elder's name whoever they are ("тётя Люба", "дядя
# Коля", "баба Валя"): the kin word unless another relation word stands before it.
_KIN_TITLES = frozenset({"тётя", "тетя", "дядя", "баба", "дед", "бабушка", "дедушка"})
_WHERE_THEY_ARE = frozenset({"снизу", "сверху", "напротив", "сбоку", "рядом"})
# What may stand between the word that says who an elder is and the elder's kin title.
_BESIDE_KIN = _WHERE_THEY_ARE | RUSSIAN_MY | frozenset({"новый", "новая", "новенькая"})
# ... and a place said with its preposition ("соседка по даче", "соседка наша в Горелове").
_WHERE_FROM = frozenset({"по", "в", "во", "на", "из", "с"})
# Kin the title itself says; an apposition naming any other relation says who the elder is.
_KIN = frozenset(
    "mother father sister brother son daughter grandmother grandfather aunt uncle cousin".split()
)
# What may stand before that noun: "наша", "моя", "новая", "бывшая" (a former neighbour is one).
_BESIDE_APPOSED = re.compile(r"^(?:наш\w*|мо[йяеи]\w*|нов\w+|бывш\w+)$", re.IGNORECASE)


def _apposed_to_titled(
    text: str, tokens: list[Token], index: int, relation_of: Any
) -> tuple[str, int] | None:
    """A relation noun in apposition after an elder's titled name, in the same clause and case
    ("тетя валя, наша бывшая соседка"): the relation and where it ends. The title is politeness,
    the noun says who she is; kin said so ("тётя Люба, сестра мамы") leave the title to say it."""
    if index + 1 >= len(tokens) or text[tokens[index].end : tokens[index + 1].start].strip() != ",":
        return None
    k = index + 1
    while k <= index + 3 and k < len(tokens) and _BESIDE_APPOSED.match(tokens[k].text):
        k += 1
    if k >= len(tokens) or not _spaces_between(text[tokens[index + 1].start : tokens[k].start]):
        return None
    relation = relation_of(tokens[k].text)
    if relation is None or relation in _KIN or relation == "ex":
        return None
    if not ru.same_case(tokens[index].text, tokens[k].text, ru.russian_tools()[2]):
        return None
    return relation, tokens[k].end


# Plural nouns chat types without their apostrophe before a relation word ("the twins dad",
# "the kids mum"): the relation is theirs.
_THEIR_KIN = frozenset({"twins", "kids", "boys", "girls", "childrens", "sons", "daughters"})


def _spaces_between(gap: str) -> bool:
    """Whether only spaces stand between the words of `gap` (no comma, no full stop)."""
    return all(not part or part.isspace() for part in re.split(r"[^\W\d_]+", gap))


# Titles stand between a relation word and a name ("my therapist Dr. Brandt").
TITLES = frozenset(
    {"dr", "mr", "mrs", "ms", "prof", "frau", "herr", "pastor", "rev", "reverend", "doña", "доктор"}
)


_POSSESSIVES = RUSSIAN_MY | {"my", "our", "мою", "нашу"}


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


def qualified(relation: str, tokens: list[Token], at: int) -> str:
    """The relation word at tokens[at], read with the word before or the two after it."""
    before = tokens[at - 1].text.casefold() if at > 0 else ""
    if relation == "friend":
        return _FRIEND_FROM.get(before, relation)
    owner = tokens[at - 2].text.casefold() if at > 1 else ""
    if before == "work" and owner in ("my", "our") and relation in _SPOUSES | _KIN:
        return "colleague"  # "my work partner Nikki", "my work wife Priya", "work mum"
    after = tokens[at + 1].text.casefold() if at + 1 < len(tokens) else ""
    if after in RUSSIAN_MY and at + 2 < len(tokens):
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
# elsewhere in the message is theirs (`people._relations_apart`); read as None in the end.
THEIRS = "\x00theirs"
# "Dr Mackay phoned": a doctor by the title alone, unless the message says who they are apart
# from the name ("Dr Helen Fraser owns the practice, she's my boss"); read as doctor in the end.
TITLED_DOCTOR = "\x00dr"


# Russian "парень" and "девушка" are any young man or woman ("парень Ираклий из клуба", "на
# девушке Насте"); before a name they are the user's partner only owned ("мой парень Илья",
# "с девушкой Настей") or made official ("теперь парень Илья").
_GUY_OR_GIRL = re.compile(r"^(?:парен|парн|девушк)", re.IGNORECASE)
_OWNED_PARTNER = _POSSESSIVES | frozenset(
    "моей моим моему моего с со официально теперь уже появился появилась есть".split()
)


# "Свой" is the subject's own: the user's where no one else is the sentence's subject before it
# ("была у врача своего у Людмилы Ивановны"; not "мама ходила к своему врачу").
_OWN = frozenset("свой своя свою своей своего своему своим".split())
_THIRD_PERSON = frozenset("он она они его её ее их".split())


def _own_said_by_user(text: str, tokens: list[Token], at: int, relation_of: Any) -> bool:
    if tokens[at].text.casefold() not in _OWN:
        return False
    opens = max(text.rfind(mark, 0, tokens[at].start) for mark in ".!?\n")
    morph = ru.russian_tools()[2]
    for k, token in enumerate(tokens[:at]):
        if token.start <= opens:
            continue
        first = not text[opens + 1 : token.start].strip()
        if (
            token.text.casefold() in _THIRD_PERSON
            or (CYRILLIC_CAPITALISED.match(token.text) and not first)
            or {"Name", "nomn"} <= set(morph.parse(token.text.casefold())[0].tag.grammemes)
            or (k < at - 1 and relation_of(token.text))  # the word "свой" follows is its own
        ):
            return False
    return True


# Colloquial Russian "мужик" is the user's husband only owned ("мужик мой Коля", "мой мужик");
# bare it is any man ("мужик этот Ашот", "золотой мужик").
_MAN = re.compile(r"^мужик(?:а|у|ом|е)?$", re.IGNORECASE)


def owned_man(tokens: list[Token], at: int) -> bool:
    """Whether tokens[at] is "мужик" with the user's possessive right before or after it."""
    if at < 0 or at >= len(tokens) or not _MAN.match(tokens[at].text):
        return False
    beside = {tokens[k].text.casefold() for k in (at - 1, at + 1) if 0 <= k < len(tokens)}
    if at + 2 < len(tokens) and tokens[at + 1].text.casefold() == "мой":
        # "мужик мой знакомый": an acquaintance, the possessive is the next word's
        following = tokens[at + 2].text.casefold()
        if following.endswith(("ый", "ий", "ой")) or following in ("друг", "сосед", "брат"):
            return False
    # Only the masculine forms: "мужик моей подруги" is the friend's man.
    return bool(beside & {"мой", "моего", "моему", "моим", "наш", "нашего", "нашему", "нашим"})


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


def _church_title(tokens: list[Token], at: int) -> bool:
    """ "Sister" or "Brother" typed capitalised, with no possessive in the three words before it
    ("my big Sister Amy" is kin): a title."""
    if tokens[at].text not in ("Sister", "Brother") or not at:
        return False  # "Sister Amy is coming": any word opening a sentence is capitalised
    owners = ("my", "our", "his", "her", "their", "mi", "me", "ma")
    return not any(t.text.casefold() in owners for t in tokens[max(at - 3, 0) : at])


def relation_near(
    text: str, tokens: list[Token], index: int, relation_of: Any
) -> tuple[str | None, int, int]:
    """Who the name at tokens[index] is to the user, from a relation word right before it ("my
    colleague Marta", "сестра Аня") or a possessive one after it ("Marta, my colleague", "Аня —
    моя сестра"); None when neither stands there."""
    name = tokens[index]
    before = index - 1
    doctor = False  # "Dr Mackay phoned": a doctor, unless a word beside says who else
    while before >= 0 and (
        tokens[before].text.casefold() in TITLES or tokens[before].text == "Miss"
    ):
        title = relation_of(tokens[before].text)
        if title:
            return title, tokens[before].start, name.end
        doctor = doctor or tokens[before].text.casefold() == "dr"
        before -= 1
    # "Сестрёнка моя Люда", "my instructor called Pete": a possessive or "called" between.
    while before > 0 and (
        tokens[before].text.casefold() in _BETWEEN
        or _own_said_by_user(text, tokens, before, relation_of)
    ):
        before -= 1
    if owned_man(tokens, before):
        return "husband", tokens[before].start, name.end  # "мужик мой Коля"
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
    if before >= 0 and not SENTENCE_BREAK.search(gap) and not _listed(gap, text, name):
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
                elif who > 1 and tokens[who - 1].text.casefold() in _WHERE_FROM:
                    who -= 2  # "соседка новая по площадке баба Шура", "соседка в Горелове"
                else:
                    break
            earlier = relation_of(tokens[who].text) if who >= 0 else None
            if earlier and _spaces_between(text[tokens[who].end : tokens[before].start]):
                if who > 0 and of_another(tokens[who - 1].text):
                    return THEIRS, tokens[who].start, name.end  # "настина мама тетя лена"
                return earlier, tokens[who].start, name.end
            later = relation_of(tokens[index + 1].text) if index + 1 < len(tokens) else None
            if later and text[name.end : tokens[index + 1].start].isspace():
                return later, tokens[before].start, tokens[index + 1].end
            apposed = _apposed_to_titled(text, tokens, index, relation_of)
            if apposed is not None:
                return apposed[0], tokens[before].start, apposed[1]
        owned = before > 0 and (
            of_another(tokens[before - 1].text)
            or text.startswith("s' ", tokens[before - 1].end - 1)  # "jules' girlfriend noor"
            or name_possessive_unmarked(tokens[before - 1].text)  # "liams mum sandra"
            or (  # "Вадимов сын Кирилл"
                CYRILLIC_CAPITALISED.match(tokens[before - 1].text) is not None
                and owner_before_noun(text, tokens, before - 1, ru.russian_tools()[2]) is not None
            )
        )
        if relation and owned:
            # "her brother Tom", "Niamh's husband Pádraig", "Гулин брат Айдар": their relation
            # to someone else, which the guide leaves unsaid (and no other word may say it).
            return THEIRS, tokens[before].start, name.end
        if (
            relation
            and CYRILLIC_CAPITALISED.match(name.text)
            and not ru.same_case(name.text, tokens[before].text, ru.russian_tools()[2])
        ):
            relation = None  # "брат Глеба": Gleb's brother, not Gleb (the cases differ)
        if relation and _a_guy(tokens, before, index):
            # "парень Ираклий из клуба": a guy, no one's boyfriend (nor is the word said apart).
            return None, tokens[before].start, name.end
        if relation and _church_title(tokens, before):
            # "told Sister Beverly yday", "Brother Femi our choir master": a congregation's
            # title, kin to no one (the train writers label all four so typed null).
            return None, tokens[before].start, name.end
        if relation:
            return qualified(relation, tokens, before), tokens[before].start, name.end
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
                return qualified(relation, tokens, k), name.start, tokens[k].end
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
        titled = "therapist" if _THERAPY.search(text) else TITLED_DOCTOR
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
            # "Lena Vogt, the postdoc in our group": a word for what they do may stand first;
            # "Kev, lad from my shift": after a comma, a word for anyone.
            r"^(?:,?\s+(?:the\s+(?:[\w-]+\s+){1,2}?)?|,\s+(?:(?:a|the|one|this)\s+)?(?:young\s+)?"
            r"(?:lad|lass|guy|girl|bloke|woman|man|lady|fella|chap|gal)\s+)"
            r"(?:(?:from|at)\s+(?:work|the office"
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
            # "Linda and I nursed together": the trade shared, the name its subject.
            r"|and (?:i|me) (?:(?:used to|have|had|once) )?(?:work(?:ed)?|nursed|taught|served)"
            r" together"
            r"|(?:who|that) i (?:used to )?work(?:ed)? (?:with|wi)\b"
            # A department, as the labelling guide reads "someone from accounting".
            r"|from (?:the )?(?:hr|accounting|accounts|finance|payroll|marketing|sales"
            r"|legal|qa|reception|front desk|support|customer service|dispatch|admin|ops|operations"
            r"|procurement|compliance|engineering|design|logistics|litigation|conveyancing|audit)"
            # ... or "in" one whose name is no school year or cause ("Leo in reception", "in
            # support of"): "Sheila in dispatch", "Priya in payroll".
            r"|in (?:hr|accounting|accounts|finance|payroll|marketing|sales|legal|dispatch"
            r"|procurement|compliance|logistics|ops|operations)(?!\s+(?:school|class|of)\b)"
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
            # "девочка с моего курса", "Ираклий с нашего потока", "из нашей группы"
            r"|(?:с|из) (?:моего |нашего |моей |нашей )?(?:курса|потока|группы)"
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


def group_relation(after: str) -> str | None:
    return next((relation for relation, said in _GROUP_AFTER if said.match(after)), None)


# "the guy from HR, Marcus", "this woman from my course, Ana": the group said of someone before
# the name, read with the same phrases as after it.
_SOMEONE_BEFORE = re.compile(
    r"\b(?:the|a|this|that|one)\s+(?:guy|girl|woman|man|lady|bloke|fella|dude|chap|lad|lass"
    r"|one|person|kid)((?:\s+[^\s,.!?]+){1,5}),\s*$",
    re.IGNORECASE,
)


def group_before(before: str) -> str | None:
    said = _SOMEONE_BEFORE.search(before)
    return group_relation(said.group(1)) if said else None


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


def said_apart(text: str, cues: LanguageCues) -> list[tuple[str, int, int]]:
    """Relation words said of someone apart from a name, with their spans."""
    pattern = _said_pattern(cues.language, tuple(cues.relations))
    found = []
    for match in pattern.finditer(text):
        if _OF_A_THING.search(text[: match.start()]):
            continue  # "that's my neighbour. Anna thinks so too": said of someone unnamed
        # The first group that holds a relation word ("мой друг детства", "мой лучший друг").
        for group in range(1, (pattern.groups or 0) + 1):
            relation = relation_word(match.group(group), cues) if match.group(group) else None
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


# Everyday Russian words for someone the user works beside that the cue lists lack: an assistant
# ("Костя, помощник мой": a driver's second) and a partner in a business ("компаньонка моя").
_CO_WORKERS_RU = dict.fromkeys(("помощник", "помощница", "компаньон", "компаньонка"), "colleague")


def relation_word(word: str, cues: LanguageCues, beside: str = "") -> str | None:
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
            relation = cues.relations.get(form) or _CO_WORKERS_RU.get(form)
            if relation:
                return relation
    return None


# Whose relative or colleague a relation word names when it is not the user's: "Tomás's sister",
# "her brother", "его жена".
ANOTHERS = frozenset(
    "his her their its 's ’s его её ее их неё нее него них ихний ихняя ихнего ихней ихнему".split()
)
# A Russian possessive adjective of a name ("Тамарин сын", "Колькина жена", "Полининого брата").
_NAME_POSSESSIVE = re.compile(r"^([а-яё]+)[иы]н(?:а|о|ы|ой|ого|ому|ым|ую)?$")
# Kin words said without a name are nearly always of someone unnamed ("mum cried, gary cried"),
# and so are a doctor's ("went to the doctor", "ортопед запретил"): these name the lone person
# only when said beside the name (`relation_near`).
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


def of_another(word: str) -> bool:
    lowered = word.casefold()
    if lowered in ANOTHERS:
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
    r"ex[\s-]+(?:marines?|army|navy|military|raf|para|soldier|cop|police\w*|convict"
    r"|footballer|boxer|fighter|firefighter|fireman|nurse|teacher|miner|trucker|smoker"
    r"|drinker|addict|banker|chef|mechanic|sailor|pilot|officer|detective)\b",
    re.IGNORECASE,
)


def loose_relations(text: str, mentions: list[PersonMention], cues: LanguageCues) -> set[str]:
    """Relation words anywhere in the message, said of no named person and owned by no one
    else ("начальница в Бублике, Света"; "best boss ive ever had"; "подруга года"): issue 34's
    writers say who someone is wherever it falls in the sentence, not only beside the name."""
    tokens = tokenize(text)
    quoted = list(QUOTED.finditer(text))
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if any(m.start <= token.start < m.end for m in mentions):
            continue
        relation = relation_word(token.text, cues)
        if relation is None:
            continue
        before = tokens[i - 1].text.casefold() if i else ""
        after = tokens[i + 1].text.casefold() if i + 1 < len(tokens) else ""
        if before in _DOER_BEFORE or after in _COMPOUND_AFTER:
            continue  # "i help coach his team", "the client bit": a verb or a noun's modifier
        if relation in _WORK_ROLES and _SOMEONES_ROLE.search(text[: token.start]):
            continue  # "hes an art teacher", "im the first base coach": what they do (not
            # "he's the only manager there", "hes the best customer i got")
        if before in _QUALIFIERS and i > 1 and of_another(_possessive(tokens[i - 2].text)):
            continue  # "mums best friend": another's
        # ... but a Russian "психолог" in a message that names one person is theirs ("нашла
        # психолога, Ксения"; "хожу к психологу, к Марине Олеговне").
        ru_therapist = relation == "therapist" and cues.language == "ru"
        if (relation in _SAID_OF_ANYONE and not ru_therapist) or of_another(before):
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
        found.add(qualified(relation, tokens, i))
    return found


# Relations someone has by their work (and the user's), which Russian names in apposition.
_BY_TRADE = frozenset({"doctor", "therapist", "teacher", "boss", "manager", "colleague", "client"})


_SURNAME_LIKE_OWNER = re.compile(
    r"^(\w{2,}?)(ин|ов|ев)(а|у|ой|ы|ым|ом|ого|ому|ых)?$", re.IGNORECASE
)


def owner_before_noun(text: str, tokens: list[Token], i: int, morph: Any) -> str | None:
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
    if i + 2 < len(tokens) and tokens[i + 2].text.casefold() in RUSSIAN_MY:
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
