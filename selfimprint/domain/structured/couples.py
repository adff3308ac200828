"""Who the user is together with or has broken up with, read from the message's words: a
couple said with the name ("me and Jake are dating", "мы с Толей расстались", "rory ended it"),
a break-up told in the first person ("we split up"), dating said before or after the name ("the
guy I'm seeing, Theo"), and whether a partner is a boyfriend or a girlfriend."""

from __future__ import annotations

import re

from selfimprint.domain.structured import russian_names as ru
from selfimprint.domain.structured.cues import LanguageCues
from selfimprint.domain.structured.mentions import PersonMention
from selfimprint.domain.structured.morphology import is_first_name

# A break-up said with the name makes the partner an ex (the labelling guide's reading): "me and
# Jake broke up", "nadia and i ended things", "мы с Толей расстались".
_BREAK_UP = re.compile(
    r"\b(?:broke up|break up|split up|splitting up|ended things|dumped"
    r"|called it (?:quits|off|a day)"
    r"|binned (?:me )?off|растались"
    r"|(?:called|broke) off (?:the|our) engagement"
    r"|sep[ae]rat(?:ed|ing)|divorc(?:ed|ing)"
    r"|расстались|р[ао]зошлись|разбежались(?!\s+(?:по\b|кто\s+куда))|расстаёмся|расстаемся|развелись|разводимся"
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
    r"(?:^|[.!?]\s*|\b(?:i|we|i've|ive|i have|just|finally)\s+)"
    r"(?:ended (?:it|things)|broke up|split up|finished (?:it|things)) with\s+$",
    re.IGNORECASE,
)


# "i gave marcus the ring back", "gave him back the ring": an engagement ended by the user.
_GAVE_BEFORE = re.compile(r"\b(?:i|i've|ive|i have|just)\s+(?:gave|handed)\s+$", re.IGNORECASE)
_RING_BACK = re.compile(
    r"^\s+(?:(?:the|my|our)\s+(?:engagement\s+)?ring\s+back|(?:his|her)\s+engagement\s+ring"
    r"\s+back|back\s+(?:the|his|her)\s+engagement\s+ring|back\s+the\s+ring)\b",
    re.IGNORECASE,
)
# "с Мариной всё.", "с Толей у нас всё кончено": it is over with them, said as a clause of its own
# (not "с Мариной всё хорошо").
_ALL_OVER = re.compile(
    r"^\s+(?:у нас\s+)?(?:вс[её](?:\s+кончено)?|кончено)\s*(?:[.!;…]|$)", re.IGNORECASE
)


def broke_up_with(text: str, mention: PersonMention) -> bool:
    """The user's own break-up with them: "me and Jake broke up", "Jake dumped me", "мы с Толей
    расстались", "ended it with mark", "gave marcus the ring back", "с Мариной всё."; not "her
    and Sam broke up"."""
    before, after = text[: mention.start], text[mention.end :]
    if _ENDED_WITH.search(before) or _ENDED_IT.match(after):
        return True
    if _GAVE_BEFORE.search(before) and _RING_BACK.match(after):
        return True
    # "с Новосибом всё." is a city left: over with a person only where the name is one.
    all_over = _ALL_OVER.match(after) is not None and is_first_name(mention.name)
    if _WITH_BEFORE.search(before) and (_PARTED_AFTER.match(after) or all_over):
        return True  # "с катей расстались", "с Мариной всё."
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
WE_BROKE_UP = re.compile(
    r"\b(?:we|we've|we have)\s+(?:just\s+|finally\s+|officially\s+)?(?:broke(?:n)? up|split"
    r"(?: up)?|ended (?:it|things))\b|\b(?:dumped|left|ghosted) me\b"
    r"|\bi (?:dumped|left) (?:him|her)\b"
    r"|\bwe(?:'re| are) (?:done|over|finished)\b"
    r"|\b(?:мы\s+)?(?:расстались|растались|р[ао]зошлись|разбежались(?!\s+(?:по\b|кто\s+куда))|расходимся|разводимся)(?:\s+мы)?\b"
    r"|\bмы\s+больше\s+не\s+(?:встречаемся|вместе)\b|\bбросил[аи]? меня\b",
    re.IGNORECASE,
)
# The user made another's partner ("eoin asked me to be his girlfriend", "she introduced me
# as her fella"): that one is the user's boyfriend (his) or girlfriend (her).
MADE_PARTNER = re.compile(
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
SHE = re.compile(r"\b(?:she|her|hers|she's|она|её|ее|ей)\b", re.IGNORECASE)


_A_MAN_OF_MINE = re.compile(r"\b(?:(?:a|my) (?:bf|boyfriend|fella|feller))\b", re.IGNORECASE)
_A_WOMAN_OF_MINE = re.compile(r"\b(?:(?:a|my) (?:gf|girlfriend))\b", re.IGNORECASE)


def dating(text: str, mention: PersonMention, cues: LanguageCues) -> str:
    """Who a person the user is together with is: boyfriend or girlfriend by the word before
    the name ("the guy I'm seeing"), the name's gender (Russian names, by the dictionary) or
    the pronouns of the message ("Ana and I are dating, she ..."); partner when none says."""
    gender = None
    said = DATING_BEFORE.search(text[: mention.start])
    after = DATING_AFTER.match(text[mention.end :])
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
        he, she = bool(_HE.search(text)), bool(SHE.search(text))
        gender = "masc" if he and not she else "femn" if she and not he else None
    return {"masc": "boyfriend", "femn": "girlfriend"}.get(gender or "", "partner")


def done_with(text: str, mention: PersonMention) -> bool:
    after = text[mention.end :]
    couple = _COUPLE_BEFORE.search(text[: mention.start]) or _COUPLE_AFTER.match(after)
    return bool(couple and _ARE_DONE.match(after))


# Dating said before the name: "встречаюсь с Гошей", "I've started dating Ana", "the guy I'm
# seeing, Theo" ("I'm seeing Tom tomorrow" is a meeting: "seeing" only after "the guy").
DATING_BEFORE = re.compile(
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
DATING_AFTER = re.compile(
    r"^\s*,\s+the (?:(?P<he>guy|boy|man|lad|fella)|girl|woman|lady)"
    r" (?:i'?m|i am|i'?ve been|ive been) (?:seeing|dating)\b",
    re.IGNORECASE,
)
# "с катей расстались", "с лизой сошлись": the user's plural verb right after "с" and the name.
_WITH_BEFORE = re.compile(r"(?:^|[\s,.!?…])(?:с|со)\s+$", re.IGNORECASE)
_PARTED_AFTER = re.compile(
    r"^\s+(?:мы\s+)?(?:расстались|р[ао]зошлись|разбежались(?!\s+(?:по\b|кто\s+куда))|развелись|расходимся|разводимся)\b",
    re.IGNORECASE,
)
_JOINED_AFTER = re.compile(
    r"^\s+(?:мы\s+)?(?:снова\s+|опять\s+)?(?:сошлись|съехались|начали встречаться)\b",
    re.IGNORECASE,
)


def together_with(text: str, mention: PersonMention) -> bool:
    before, after = text[: mention.start], text[mention.end :]
    if DATING_AFTER.match(after) or (_WITH_BEFORE.search(before) and _JOINED_AFTER.match(after)):
        return True
    if DATING_BEFORE.search(before):
        return not (_A_MEETING.search(before) or _A_MEETING.match(after))
    rest = _rest_of_sentence(text, mention)
    couple = bool(_COUPLE_BEFORE.search(text[: mention.start]) or _COUPLE_AFTER.match(rest))
    # Said within the clause's first words ("theo and i are official 🫣 i have a bf again").
    return couple and bool(_TOGETHER.search(" ".join(rest.split()[:6])))
