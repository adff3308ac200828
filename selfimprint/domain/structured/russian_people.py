"""The people a Russian message names, and who they are to the user: natasha's slovnet NER and
pymorphy2's dictionary (`russian_names`) find the names, in their dictionary form ("с Мартой"
-> "Марта"), lowercase ("с олей"), shouted, in possessive adjectives ("Олина мама" -> "Оля")
and with their patronymics; the relation words beside them (`relations`), in Russian word order
too ("Оля, жена моя", "у димы одногруппника", "наш трудовик Сергей"), say who they are. Apart
from `people`, which keeps the English reading and calls `russian` for a Russian message."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from selfimprint.domain.structured import russian_names as ru
from selfimprint.domain.structured.cues import LanguageCues
from selfimprint.domain.structured.mentions import (
    AFTER_COMMA,
    CYRILLIC_CAPITALISED,
    SENTENCE_BREAK,
    SENTENCE_START,
    SPEAKER,
    PersonMention,
)
from selfimprint.domain.structured.relations import (
    ANOTHERS,
    RUSSIAN_MY,
    group_relation,
    of_another,
    owned_man,
    owner_before_noun,
    qualified,
    relation_near,
    relation_word,
)
from selfimprint.domain.structured.tokens import CAPITALISED, WORD, Token, tokenize


def _names_next(tokens: list[Token], at: int) -> bool:
    """A capitalised name right after the relation word at tokens[at] (a possessive between)."""
    k = at + 1
    if k < len(tokens) and tokens[k].text.casefold() in ("мой", "моя", "наш", "наша"):
        k += 1  # not "начальник нашего Управления"
    return k < len(tokens) and bool(CYRILLIC_CAPITALISED.match(tokens[k].text))


def russian(text: str, cues: LanguageCues, known: frozenset[str]) -> list[PersonMention]:
    segmenter, ner, morph, doc_type = ru.russian_tools()
    doc = doc_type(text)
    doc.segment(segmenter)
    doc.tag_ner(ner)
    tagged = {(s.start, s.stop) for s in doc.spans if s.type == "PER"}
    tokens = tokenize(text)

    def relation_of(word: str) -> str | None:
        return relation_word(word, cues)

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
            or owner_before_noun(text, tokens, i, morph)
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
                or ru.lowercase_surname(word.casefold(), morph, noun_next, before)
                or ru.name_before_its_verb(word.casefold(), tokens, i, morph)
                or ru.diminutive_of_a_name(word, morph)
                or ru.ha_diminutive(word, morph)
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
                or ru.ha_diminutive(word, morph)
                or ru.first_name(
                    word,
                    morph,
                    tokens[i - 1].text if i else "",
                    bool(SENTENCE_START.search(text[: token.start]))
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
        relation, start, end = relation_near(text, tokens, i, relation_of)
        if relation is not None and i and start == tokens[i - 1].start:
            # A word the dictionary lacks ("тимлид") has only guessed cases: no disagreement.
            word_before = tokens[i - 1].text.casefold()
            known_before = morph.word_is_known(word_before)
            if known_before and not ru.cases_agree(tokens[i - 1].text, word, morph):
                relation = None  # "учительница мирона": Мирон's teacher, not the user's
        at_start = bool(SENTENCE_START.search(text[: token.start]))
        if at_start and SPEAKER.match(text[token.end :]) and word.casefold() not in known:
            continue  # "Оля: привет!": who speaks, not whom the message is about
        sure = lowercase or shouted or owner is not None or in_ner
        if name is not None and at_start and not sure and name.casefold() not in known:
            # Sentence-initial capitals are every word's; a dictionary name there needs a verb
            # after it ("Марта напомнила") or a relation word by it ("Марта — моя коллега").
            following = tokens[i + 1].text if i + 1 < len(tokens) else ""
            verb = any("VERB" in p.tag for p in morph.parse(following)[:1])
            grouped = group_relation(text[token.end :])  # "Ира с работы — дизайнер"
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
                if patronymic.endswith("на"):  # Петровна, Ильинична: hers, so is the name
                    full = ru.womans_first_name(word, morph) or full
                full, end, after = f"{full} {patronymic}", max(end, tokens[i + 1].end), i + 2
                joined.add(i + 1)
                if relation is None:  # "Ирина Михайловна, наша начальница": after the full name
                    relation, _, said_end = relation_near(text, tokens, i + 1, relation_of)
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
                relation_word(tokens[after].text, cues, beside=tokens[i].text)
                or ("husband" if owned_man(tokens, after) else None)  # "Коля, мужик мой"
                if after < len(tokens) and not theirs
                else None
            )
            if said and (
                _names_next(tokens, after)
                or SENTENCE_BREAK.search(text[tokens[after - 1].end : tokens[after].start])
            ):
                # "Вадим, подружка моя Наташа": Наташа's, the next one named; "Артур. парень
                # по имени ...": the next sentence's.
                said = None
            if said and not ru.same_case(tokens[i].text, tokens[after].text, morph):
                said = None  # "Гене кардиолог велела": Gena's doctor, not Gena
            if said == "ex" and _former_trade(tokens, after):
                said = None  # "гоша бывший военный": a former trade, no one's ex
            if said:
                end = max(end, tokens[after].end)  # "шефиня наша" is hers, said of no one else
            said = qualified(said, tokens, after) if said else None
            relation = said or group_relation(text[end:])
        if relation is None and owner is None:
            relation, said_at = _named_after_its_noun(text, tokens, i, end, relation_of)
            start = min(start, said_at)  # the noun is this one's, said of no one else
            relation = relation or _child_by_order(tokens, i, morph, relation_of)
        if relation is None and owner is None and _our_worker(tokens, i, after, morph):
            relation = "colleague"
        found.append(PersonMention(full, None if owner else relation, start, end))
        if owner is not None:
            owned.add(full)
    return _listed_after_colon(text, tokens, _one_name_each(found, owned, text), relation_of)


_CALLED = re.compile(r"^\s+(?:(?:её|ее|его)\s+)?зовут\b", re.IGNORECASE)


# Trades and ranks "бывший" qualifies ("гоша бывший военный"); an insult after it ("костя
# бывший козёл") leaves him the ex.
_TRADE = re.compile(
    r"^(?:военн|мент|полицейск|спортсмен|боксер|борец|моряк|летчик|десантник|офицер|следовател"
    r"|прокурор|повар|врач|учител|инженер|шахтер|футболист|хоккеист|танцор|пожарн|спасател"
    r"|таксист|дальнобой|зэк|бандит|фсбшник|сотрудник|директор|начальник)",
    re.IGNORECASE,
)


def _former_trade(tokens: list[Token], at: int) -> bool:
    """Whether "бывший" at tokens[at] qualifies a trade, not a partner ("бывший военный")."""
    return at + 1 < len(tokens) and bool(_TRADE.match(tokens[at + 1].text.replace("ё", "е")))


def _named_after_its_noun(
    text: str, tokens: list[Token], i: int, end: int, relation_of: Any
) -> tuple[str | None, int]:
    """ "с психологом, Елена Андреевна зовут", "психолог новый, зовут Елена": a relation word,
    a comma, and the name said with "зовут" is that one's name (not "у сестры подруга, Катя
    зовут": another's)."""
    none = (None, tokens[i].start)
    at = i - 1 if i and tokens[i - 1].text.casefold() == "зовут" else i
    if at == i and not _CALLED.match(text[end:]):
        return none
    if at < 1 or text[tokens[at - 1].end : tokens[at].start].strip() != ",":
        return none
    said = at - 1
    if said and tokens[said].text.casefold() in RUSSIAN_MY | {"новый", "новая"}:
        said -= 1  # "психолог мой, зовут ..."
    if said and (of_another(tokens[said - 1].text) or relation_of(tokens[said - 1].text)):
        return none
    relation: str | None = relation_of(tokens[said].text)
    return (relation, tokens[said].start) if relation else none


# "старшенькому моему тимуру", "младшая наша Соня": a child called by birth order, the user's
# possessive beside, a son or a daughter by the adjective's gender.
_BY_ORDER = re.compile(r"^(?:старш|младш)", re.IGNORECASE)


def _child_by_order(tokens: list[Token], i: int, morph: Any, relation_of: Any) -> str | None:
    words = [t.text.casefold() for t in tokens[max(0, i - 2) : i]]
    if len(words) < 2 or not (set(words) & (RUSSIAN_MY | _MY_OBLIQUE | {"моему", "нашему"})):
        return None
    if i >= 3 and relation_of(tokens[i - 3].text):
        return None  # "брат мой младший Николай": the order is of the word before, a brother
    order = next((w for w in words if _BY_ORDER.match(w)), None)
    if order is None:
        return None
    parse = morph.parse(order)[0]
    if "ADJF" not in parse.tag or not ru.same_case(tokens[i].text, order, morph):
        return None
    return {"masc": "son", "femn": "daughter"}.get(str(parse.tag.gender))


def _listed_after_colon(
    text: str, tokens: list[Token], found: list[PersonMention], relation_of: Any
) -> list[PersonMention]:
    """A plural relation word before a colon names each one its sentence lists after it:
    "сыновья у меня: тимур старший, 11 лет, и амир 8 лет" (not "у Кати сыновья: ...")."""
    for k, token in enumerate(tokens):
        colon = re.match(r"\s*(?:у (?:меня|нас)\s*)?:", text[token.end :], re.IGNORECASE)
        if colon is None or not _plural_relation(token.text, relation_of):
            continue
        if k and (of_another(tokens[k - 1].text) or tokens[k - 1].text.casefold() == "у"):
            continue
        if k and any(m.start <= tokens[k - 1].start < m.end for m in found):
            continue  # "Катины сыновья:", "у Кати сыновья:"
        start = token.end + colon.end()
        stop = SENTENCE_BREAK.search(text, start)
        stop_at = stop.start() if stop else len(text)
        relation = relation_of(token.text)
        found = [
            dataclasses.replace(m, relation=relation)
            if m.relation is None and start <= m.start < stop_at
            else m
            for m in found
        ]
    return found


def _plural_relation(word: str, relation_of: Any) -> bool:
    morph = ru.russian_tools()[2]
    return "plur" in morph.parse(word.casefold())[0].tag and relation_of(word) is not None


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
_MY_OBLIQUE = RUSSIAN_MY | {"моих", "нашу", "мою", "наших"}


def _owned_after(tokens: list[Token], at: int, morph: Any, relation_of: Any) -> bool:
    """Whether the relation word at tokens[at], after a name, is another's: "Нинка бывшая
    его", "Нина бывшая жена Валеры" (the ex-wife of Валера's)."""
    if at + 1 >= len(tokens):
        return False
    following = tokens[at + 1].text.casefold()
    if following in ANOTHERS:
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


def _unknown_with_relation(
    text: str, tokens: list[Token], i: int, morph: Any, relation_of: Any
) -> bool:
    """A capitalised word the dictionary does not know, with a relation word by it ("Драган,
    мой руководитель", "Вукашин — мой сосед"): a foreign name, not a common noun."""
    word = tokens[i].text
    if not CYRILLIC_CAPITALISED.match(word) or morph.word_is_known(word.casefold()):
        return False  # a Latin word there is a company's or a place's ("Sary Bank, мой ...")
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is not None and text[tokens[i].end : nxt.start].isspace() and relation_of(nxt.text):
        return True  # "Витёк сосед опять ..." (not "вдоль Свислочи, врач велела")
    return relation_near(text, tokens, i, relation_of)[0] is not None


def _named_beside_relation(
    text: str, tokens: list[Token], i: int, morph: Any, relation_of: Any
) -> str | None:
    """A lowercase word the name rules pass over, said to be someone by a relation word right
    beside it: "бабуля валя" (also a verb's gerund), "с дружбаном коляном", "ирка моя подруга",
    "вован кореш со школы", "жека мой препод" (nicknames no dictionary holds). After the
    relation word, the name's case must agree with it ("мама позвнила", a typo, is no one);
    before it, a word unknown to the dictionary must open its clause and end as no verb does."""
    word = tokens[i].text.casefold()
    if len(word) < 3 or not word.isalpha() or relation_of(word) or of_another(word):
        return None  # "к бывшей жене" (a wife, not Женя), "иркин муж" (Ира's husband)
    parses = morph.parse(word)
    named = [p for p in parses if "Name" in p.tag and "plur" not in p.tag]
    before = i - 1 if i and tokens[i - 1].text.casefold() not in RUSSIAN_MY else i - 2
    if not morph.word_is_known(word) and (_VERB_ENDING.search(word) or word.endswith("о")):
        return None  # "мама фоткала", "на жену переписанно": a verb or an adverb mistyped
    if before >= 0 and text[tokens[before].end : tokens[i].start].strip() in ("", "мой", "моя"):
        cases = {p.tag.case for p in morph.parse(tokens[before].text) if p.tag.case}
        if relation_of(tokens[before].text) and any(p.tag.case in cases for p in named):
            agreeing = [p for p in named if p.tag.case in cases]
            return str(max(agreeing, key=lambda p: float(p.score)).normal_form).capitalize()
    j = i + 1
    if j < len(tokens) and tokens[j].text.casefold() in RUSSIAN_MY:
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
    opens = SENTENCE_START.search(text[: tokens[i].start]) or AFTER_COMMA.search(
        text[: tokens[i].start]
    )
    return word.capitalize() if opens and not _VERB_ENDING.search(word) else None


# How a Russian verb form ends (past, infinitive, reflexive, present): an unknown word ending so is
# a mistyped verb ("позвнила моя мама"), not a nickname ("жека", "витёк").
_VERB_ENDING = re.compile(r"(?:л[аио]?|ть|ти|с[яь]|[еи]т|[юя]т|[еи]м|[еи]шь)$")
