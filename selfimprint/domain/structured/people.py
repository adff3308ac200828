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

This module keeps the English reading and the entry points (`find_people`, `broken_up_with`,
`same_person`, `organisations`). The Russian reading is in `russian_people`, the relation words
both languages share in `relations`, the English first names in `english_names`, the readings of
couples and break-ups (who the user is together with or has broken up with) in `couples`, and
`PersonMention` with the sentence marks both readers use in `mentions`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from selfimprint.domain.language import detect_language
from selfimprint.domain.structured.couples import (
    DATING_AFTER,
    DATING_BEFORE,
    MADE_PARTNER,
    SHE,
    WE_BROKE_UP,
    broke_up_with,
    dating,
    done_with,
    together_with,
)
from selfimprint.domain.structured.cues import LanguageCues, normalise
from selfimprint.domain.structured.cues import cues as language_cues
from selfimprint.domain.structured.english_names import (
    SKIP,
    Gazetteer,
    gazetteer,
    possessive_of_a_name,
)
from selfimprint.domain.structured.mentions import (
    AFTER_COMMA,
    SENTENCE_START,
    SPEAKER,
    PersonMention,
)
from selfimprint.domain.structured.name_keys import full_name_keys
from selfimprint.domain.structured.relations import (
    NO_RELATION,
    THEIRS,
    TITLED_DOCTOR,
    TITLES,
    group_before,
    group_relation,
    loose_relations,
    relation_near,
    said_apart,
)
from selfimprint.domain.structured.russian_people import russian
from selfimprint.domain.structured.tokens import CAPITALISED, WORD, Token, tokenize

# The public entry points; `Gazetteer`, `gazetteer` and `PersonMention` live in `english_names`
# and `mentions`, and are imported from here as before.
__all__ = [
    "Gazetteer",
    "PersonMention",
    "broken_up_with",
    "find_people",
    "gazetteer",
    "organisations",
    "same_person",
]

# After a sentence-initial word these say nothing of a person ("Work is crazy", "Life has ...").
_WEAK_AFTER = re.compile(r"^\s+(?:is|was|has|had|just|always|never|got|keeps|kept)\b", re.I)
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


# A name called after a comma at a clause's end ("that's great, Caroline!") or after a greeting
# ("hey Mel!") is whom the message speaks to (`mentions.SPEAKER`), not someone it is about.
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
    "man": "partner",  # "my man marcus"; the guide's list has no word for whose
    "maw": "mother",  # Scots: "my maw", "ma maw Ann"
}
_ENDEARMENT_WORDS = "|".join(_ENDEARMENTS)
# Scots "ma" is "my" ("ma maw Ann"); "wee" is "little" ("my wee lassie Isla").
_MY_ONE = (
    rf"(?:my|ma)\s+(?P<size>(?:baby|little|wee|oldest|eldest|youngest|big)\s+)?"
    rf"(?P<word>{_ENDEARMENT_WORDS})"
)
# "my wee man", "my little man": a small boy, the user's son.
_LITTLE = frozenset({"baby", "little", "wee"})
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
    word = said.group("word").casefold()
    if said.group(0).casefold().startswith("ma ") and word in {*_CHILDREN, "man", "dude", "dawg"}:
        return None  # Scots and chat "ma boy Jake", "ma man": a mate as often as a son
    rest = after if front else after[said.end() :]
    if word in _CHILDREN or word == "dude":
        if _PAL_SINCE.match(rest):
            return "friend"
        if group_relation(rest) == "colleague":
            return "colleague"
        if front and word == "girl" and _WITH_PARTNER.search(before[: front.start()]):
            return "girlfriend"
    if said.re is _ENDEARMENT_APPOSED:
        return None
    if word == "man" and (said.group("size") or "").strip().casefold() in _LITTLE:
        return "son"
    return _ENDEARMENTS[word]


# "my youngest macsen", "my eldest, Osian": a child named by birth order, a son or a daughter
# by the message's pronouns (none or both: no relation said).
_ORDER = r"(?:my|our)\s+(?:youngest|oldest|eldest|middle\s+one|last\s*born|first\s*born)"
_BY_ORDER = re.compile(rf"\b{_ORDER},?\s+$", re.IGNORECASE)
# ... or after the name: "Arjun (my oldest)", "DAYO my last born", "Lorraine my youngest",
# "maryam is my youngest".
_BY_ORDER_AFTER = re.compile(rf"^(?:'s|’s|\s+is|\s+was)?\s*[,(]?\s*{_ORDER}\b", re.IGNORECASE)
_HE_CHAT = re.compile(r"\b(?:he|him|his|he's|hes|himself)\b", re.IGNORECASE)


def _child_by_order(text: str, before: str, after: str = "") -> str | None:
    if not (_BY_ORDER.search(before) or _BY_ORDER_AFTER.match(after)):
        return None
    he, she = bool(_HE_CHAT.search(text)), bool(SHE.search(text))
    return "son" if he and not she else "daughter" if she and not he else None


# "my pops name is Darnell", "my boss's name is Trish": who they are, then their name.
_NAME_OF_MY = re.compile(r"\bmy\s+([^\W\d_]+?)(?:'s|’s|s)?\s+name\s+(?:is|was)\s+$", re.I)


def _named_as(before: str, relation_of: Callable[[str], str | None]) -> str | None:
    said = _NAME_OF_MY.search(before)
    if said is None:
        return None
    word = said.group(1)
    return relation_of(word) or relation_of(word + "s")  # "pops" is a relation word itself


# "my new manager is gonna be a guy named Brent", "found us a couples counsellor, a woman called
# Moira": the user's relation word, then the one it is as anyone named (not "the physio is a
# young lad called Tariq": no one's).
_ONE_NAMED = re.compile(
    r"\b(?:my|our|(?:me|us|myself|ourselves)\s+an?)\s+(?P<said>(?:[\w-]+\s+){0,2}?[\w-]+)"
    r"(?:\s*,\s*|\s+(?:is|was|will be|(?:is|was) (?:gonna|going to) be)\s+)"
    r"(?:an?|this|some)\s+(?:(?:young|old|older|nice|lovely|new)\s+)?"
    r"(?:guy|man|woman|lady|chap|bloke|girl|fella|lad|lass|gal|gent|gentleman)\s+"
    r"(?:named|called)\s+$",
    re.IGNORECASE,
)


def _one_named(before: str, relation_of: Callable[[str], str | None]) -> tuple[str | None, int]:
    """The relation and where its words start (the mention spans them, so no other name in the
    message is given the same relation word as one said apart)."""
    said = _ONE_NAMED.search(before)
    if said is None:
        return None, len(before)
    words = said.group("said").split()
    return next((r for r in map(relation_of, reversed(words)) if r), None), said.start("said")


# "tadhg and kasia from work": the group said after the pair is each one's.
_AND_ANOTHER = re.compile(r"^\s+(?:and|&)\s+[^\W\d_]+(?=\s)", re.IGNORECASE)


def _said_to_be_someone(text: str, tokens: list[Token], i: int, relation_of: Any) -> bool:
    """Whether the lowercase word at tokens[i] stands where a name does beside a relation word:
    "pete my running coach", "my cousin vik", "hazel next door", "ирка моя подруга". Chat types
    names in lowercase that no list holds (or holds as everyday words, "dawn", "hazel"); the
    caller still asks the reader of words (English) or the dictionary (Russian) whether the
    word could be a name at all, so "my sister said" names no one."""
    relation, start, _ = relation_near(text, tokens, i, relation_of)
    if relation in ("mother", "father") and start < tokens[i].start:
        return False  # "mum rang", "dad says": a parent word is no title before a name
    relation = relation or group_relation(text[tokens[i].end :])
    if _BY_ORDER.search(text[: tokens[i].start]) or _BY_ORDER_AFTER.match(text[tokens[i].end :]):
        return True  # "my youngest macsen", "maryam is my youngest"
    return relation is not None and relation != THEIRS


# Working together said of the one person the message names: a colleague.
_WORK_TOGETHER = re.compile(
    r"\b(?:вместе\s+работа(?:ем|ли)|работа(?:ем|ли)\s+(?:вместе|в паре)|в паре\s+работа(?:ем|ли)"
    r"|бок о бок|(?:we|i)\s+(?:used to\s+)?(?:work(?:ed)?|nursed|taught)\s+together"
    # Where the user works, as "ours": "у нас в бригаде новый парень Артур", "Денис у нас
    # сеньор", "the new girl on my team".
    r"|у (?:нас|меня) (?:в|на) (?:бригад|салон|команд|экипаж|бухгалтери|офис|отдел|смен|цех"
    r"|работ|склад|завод|кухн|процедурн)\w*|(?:on|in) (?:my|our) (?:team|crew|shift|ward|unit)"
    r")\b",
    re.IGNORECASE,
)


# Friends said of "we", or of no one as a clause opens: "we've been mates since", "best friends
# since grade 4" (not "mum and Jo have been friends for years": theirs).
_FRIENDS_SINCE = re.compile(
    r"(?:\b(?:we|we've|weve|we have|we're|we are)\s+(?:been\s+)?|(?:^|[.!?;]\s*))"
    r"(?:best\s+|good\s+|close\s+|old\s+)?(?:mates|friends|pals|buddies)\s+(?:since|for)\b",
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
        and (broke_up_with(text, m) or done_with(text, m))
        else PersonMention(m.name, dating(text, m, cues), m.start, m.end)
        if m.relation is None and together_with(text, m)
        else m
        for m in mentions
    ]
    unsaid = [i for i, m in enumerate(mentions) if m.relation in (None, TITLED_DOCTOR)]
    if len({mentions[i].name for i in unsaid}) != 1:
        return mentions
    lone = mentions[unsaid[0]]
    made = MADE_PARTNER.search(text)
    if made and len({m.name for m in mentions}) == 1:
        # "eoin asked me to be his girlfriend": he is the user's boyfriend.
        relation: str | None = (
            "boyfriend" if made.group("whose").casefold() == "his" else "girlfriend"
        )
    elif WE_BROKE_UP.search(text) and len({m.name for m in mentions}) == 1:
        relation = "ex"
    else:
        free = {
            relation
            for relation, start, end in said_apart(text, cues)
            if not any(m.start <= start < m.end for m in mentions)
        }
        relation = next(iter(free)) if len(free) == 1 else None
        if not free:
            loose = loose_relations(text, mentions, cues)
            relation = next(iter(loose)) if len(loose) == 1 else None
        if not free and not loose and _WORK_TOGETHER.search(text):
            relation = "colleague"  # "мы с ней вместе работаем", "we work together"
        elif not free and not loose and _FRIENDS_SINCE.search(text):
            relation = "friend"  # "we've been mates since we both started there"
    if relation is None:
        return mentions
    return [
        PersonMention(m.name, relation, m.start, m.end) if m.name == lone.name else m
        for m in mentions
    ]


# "the old man next door, Mr Douglas": the neighbour named after where they live.
_NAMED_AFTER_WHERE = re.compile(
    r"\b(?:next door|downstairs|upstairs|across the (?:hall|road|street)),\s*"
    r"(?:(?:mr|mrs|ms|miss|dr)\.?\s+)?$",
    re.IGNORECASE,
)
# "my flatmates are Chloe and Ravi", "my cousins, Jo and Em": each named is one of them.
# ... "our boys Chidi (16) and Tobenna (7)", "two boys Osian (13) and Macsen (9)", "new
# neighbours are a retired couple Derek and Pat".
_LISTED_AFTER = re.compile(
    r"\b(?:my|our|two|three|four|(?<!'s )(?<!’s )(?<!his )(?<!her )(?<!their )(?<!your )"
    r"(?:the\s+)?new) ([a-z]+?)s(?:\s+are|\s*[,:])?"
    r"(?:\s+an?\s+(?:[a-z]+\s+){0,2}?(?:couple|pair))?\s+"
    r"(?:[A-Z][a-z]+(?:\s*\(\d+\))?(?:\s*,\s*|\s+and\s+|\s*&\s*))*$"
)
_CHILDREN = {"boy": "son", "girl": "daughter"}


def _listed_after(before: str, relation_of: Any) -> str | None:
    said = _LISTED_AFTER.search(before)
    if said is None:
        return None
    relation: str | None = relation_of(said.group(1))
    if relation is None and said.group(0).casefold().startswith(("our", "two", "three", "four")):
        # "our boys", "two boys": sons; "my boys" (or "the new boys") may as well be mates.
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
        if word in cues.not_names or key in SKIP or key in TITLES or key in single:
            continue
        if key in _ENDEARMENTS and i and tokens[i - 1].text.casefold() in ("my", "ma"):
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
        if word == "Miss" and i + 1 < len(tokens) and CAPITALISED.match(tokens[i + 1].text):
            continue  # "my mum Miss Icilda": a title, the name follows it
        before, after = text[: token.start], text[token.end :]
        at_start = bool(SENTENCE_START.search(before))
        greeted = _greeted(text, tokens, i)
        called = bool(AFTER_COMMA.search(before) and _CLAUSE_END.match(after))
        if key not in known and ((at_start and SPEAKER.match(after)) or greeted or called):
            continue  # "Caroline: hey!", "hey Mel!", "that's great, Caroline!": speaker, addressee
        capitalised = bool(CAPITALISED.match(word))
        owner = i + 1 < len(tokens) and tokens[i + 1].text == "'s"
        listed = names.name_of(word, inside=capitalised and not at_start, marked=owner)
        titled = i > 0 and tokens[i - 1].text.casefold() in TITLES and word.isalpha()
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
        relation, start, end = relation_near(text, tokens, i, relation_of)
        relation = relation or group_relation(after) or _endearment(before, after)
        relation = relation or group_relation(_AND_ANOTHER.sub("", after, count=1))
        relation = relation or _listed_after(before, relation_of)
        relation = relation or _child_by_order(text, before, after)
        relation = relation or _named_as(before, relation_of)
        relation = relation or group_before(before)
        if relation is None:
            relation, said_at = _one_named(before, relation_of)
            start = said_at if relation else start
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
            or (capitalised and bool(DATING_BEFORE.search(before)))
            or bool(DATING_AFTER.match(after))
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
            if listed is None and possessive and possessive_of_a_name(key):
                name = key[:-1].capitalize()  # "jordans sign": Jordan's, typed without "'"
            elif possessive and key.endswith("s") and key[:-1] in known:
                name = key[:-1].capitalize()  # "kirstys birthday": a name the user told of
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
    if key in _NOT_SURNAMES or key in SKIP or key in _PLACE_NOUNS or key in TITLES:
        return None
    if after.text in cues.not_names or key in cues.relations:
        return None
    return after


# Words before a name that make the two a place's name ("Lake Nokomis", "Mount Pleasant").
_PLACE_TITLES = frozenset({"st", "saint", "lake", "mount", "mt", "port", "fort", "san", "santa"})


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
# A name, then the age, opening a sentence: how users introduce themselves ("Desmond Campbell,
# 58, born and raised in Kingston"; "Лев, 22, архитектор").
_INTRO_AGE = re.compile(
    r",\s*\d{1,2}(?![\d.:])\s*(?:y/?o\s*|лет\s*|года?\s*)?[,;]"
    r"(?!\s*(?:is|was|has|had|and|just|works?|lives?|got|moved|это|и|работает|живёт|живет)\b)",
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
    if _SIGN_OFF.match(text, mention.end) and SENTENCE_START.search(text[: mention.start]):
        return True  # "Happy Hogmanay! Bea x": the user signing off
    if (
        mention.relation is None
        and _INTRO_AGE.match(text, mention.end)
        and SENTENCE_START.search(text[: mention.start])
    ):
        return True  # "quick intro. shauna, 34, staff nurse": a name and an age open a bio
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
    read_relations: Mapping[str, tuple[str, float]] | None = None,
) -> tuple[PersonMention, ...]:
    """Named people in `text`, first mention of each name, with the relation where one is said.

    `known`: names the user has already told of (person memories), found wherever they stand;
    `not_people`: words known to name places or companies (`organisations`); `likely` and
    `unlikely`: words (casefolded) a reader of words takes, or does not take, for a person's
    name in this text; `possible`: words it reads as a name often enough that one standing
    beside a relation word is one ("pete my running coach", "tita nene"). English only: Russian
    names have their dictionary and NER. `read_relations`: word (casefolded) -> the relation a
    reader of the message reads for the person it names, and its probability; it says who a
    person is where the rules read no relation word ("my boy from church", "завуч моя"), never
    over one they read nor for another's relative ("her brother Tom") (`_with_read_relations`).
    """
    clean = normalise(text)
    known_names = frozenset(k.casefold() for k in known)
    excluded = frozenset(not_people) - {k for k in known if k}
    if cues.language == "ru":
        read = russian(clean, cues, known_names)
    else:
        read = _english(
            clean,
            cues,
            known_names,
            frozenset(likely) - frozenset(SKIP),
            frozenset(possible) - frozenset(SKIP),
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
    said_at_last = {THEIRS: None, TITLED_DOCTOR: "doctor"}
    apart = _relations_apart(clean, mentions, cues)
    mentions = [
        PersonMention(m.name, said_at_last[m.relation], m.start, m.end)
        if m.relation in said_at_last
        else m
        for m in apart
    ]
    best: dict[str, PersonMention] = {}
    for mention in mentions:
        seen = best.get(mention.name)
        if seen is None or (seen.relation is None and mention.relation is not None):
            best[mention.name] = mention
    if read_relations:
        best = _with_read_relations(text, apart, best, read_relations)
    return tuple(sorted(best.values(), key=lambda m: m.start))


_SAID_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_OWNED = re.compile(r"(?:'s|’s)$")


def _with_read_relations(
    text: str,
    apart: list[PersonMention],
    best: dict[str, PersonMention],
    read: Mapping[str, tuple[str, float]],
) -> dict[str, PersonMention]:
    """`best` with the relations a reader read for people the rules gave none. Only someone no
    mention of the message gives a relation, theirs or another's ("my sister Anna ... Anna
    called", "her brother Tom ... Tom is loud"), takes a read one; and a relation word says one
    person's relation: a relation the rules gave someone in the message is not read for
    another ("told my boss Helen ... going to miss Kate": Kate is no boss), and of two people
    read with the same relation only the likelier keeps it ("Mike called. My boy, ... my
    grandson Owen": the son is Mike)."""
    said = {m.name for m in apart if m.relation is not None}
    held = {m.relation for m in best.values() if m.relation is not None}
    readings = {
        name: found
        for name, mention in best.items()
        if name not in said and (found := _read_for(mention, text, read)) is not None
    }
    likeliest: dict[str, tuple[float, str]] = {}
    for name, (relation, p) in readings.items():
        if relation not in held and p > likeliest.get(relation, (-1.0, ""))[0]:
            likeliest[relation] = (p, name)
    out = dict(best)
    for relation, (_, name) in likeliest.items():
        mention = best[name]
        out[name] = PersonMention(mention.name, relation, mention.start, mention.end, read=True)
    return out


def _read_for(
    mention: PersonMention, text: str, read: Mapping[str, tuple[str, float]]
) -> tuple[str, float] | None:
    """The relation (and its probability) read for the word that spells the mention's name (a
    Russian name in any case: "Геной" is Гена), where one was read."""
    first = mention.name.split()[0].casefold().replace("ё", "е")
    stem = first if len(first) < 4 else first[: max(3, len(first) - 1)]
    for match in _SAID_WORD.finditer(text, mention.start, mention.end):
        word = _OWNED.sub("", match.group(0)).casefold()
        found = read.get(word)
        if found is not None and word.replace("ё", "е").startswith(stem):
            return found
    return None


def likeliest_relation(odds: Mapping[str, float], likely: float) -> tuple[str, float] | None:
    """The relation a reader reads with at least `likely` and above its "none", with its
    probability (None where no relation is that likely)."""
    said = {r: p for r, p in odds.items() if r != NO_RELATION}
    if not said:
        return None
    best = max(said, key=lambda r: said[r])
    if said[best] >= likely and said[best] > odds.get(NO_RELATION, 0.0):
        return best, said[best]
    return None


@lru_cache(maxsize=4096)
def _people_of(text: str) -> tuple[PersonMention, ...]:
    return find_people(text, language_cues(detect_language(text)))


# Words without which no break-up reading can hold: a cheap gate before reading the people.
_PARTING = re.compile(
    r"\b(?:broke|break|split|splitting|ended|dumped|called|binned|separat\w*|divorc\w*|done|over"
    r"|through|finished|left|ghosted|ring|расста\w*|растались|р[ао]зош\w*|расход\w*|развел\w*|развод\w*"
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
    ended = {m.name for m in mentions if broke_up_with(clean, m) or done_with(clean, m)}
    if WE_BROKE_UP.search(clean) and len({m.name for m in mentions}) == 1:
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
