"""Claims about a slot (job, home, relationship, plans, habits) and when two of them contradict.

A claim says that the slot holds a value ("I work at Initech": job = initech) or that a value no
longer holds ("I quit Initech", "I am not working there anymore": job ends, value initech or
any). Spec §6: a new claim that ends or replaces an older one contradicts it; the tensions log
records it and the older memory loses weight (domain.ingestion does both).

Habits and preferences are claims too: a clause does the habit ("I drink again", "теперь ем
мясо") or not ("I don't drink", "I'm vegetarian", "бросила курить"); a newer claim of the other
polarity that says the habit changed contradicts the older one.

A claim is the user's unless another person is its subject ("my sister moved to Glasgow",
"папа бросил курить"): another's job, home or habit says nothing of the user's (`_whose`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from selfimprint.domain.language import detect_language
from selfimprint.domain.structured.cues import QUOTED, HabitCues, LanguageCues, normalise
from selfimprint.domain.structured.cues import cues as language_cues
from selfimprint.domain.structured.dates import day_names
from selfimprint.domain.structured.morphology import (
    is_first_name,
    is_nominative_name,
    is_place_name,
    is_verb,
)
from selfimprint.domain.structured.people import broken_up_with, find_people, gazetteer
from selfimprint.domain.structured.slots_model import Slot
from selfimprint.domain.terms import FUNCTION_WORDS, NEGATIONS, read, stem

_CLAUSES = re.compile(r"[,;.!?]+|\s(?:but|and|а|но|и)\s", re.IGNORECASE)
# Where a subject's words stop: a sentence part, "and" kept ("my husband and I are ...").
_PUNCTUATION = re.compile(r"[,;.!?]+")
# A claim's value ends with its sentence: "I'll let you know. Off to bake" plans no baking.
_SENTENCE_END = re.compile(r"[;.!?]")
# "there" / "там": the value the older claim names, whatever it is.
_ANY = frozenset({"there", "там"})
# The value of a claim of a new partner left unnamed: equal to no name.
_UNNAMED = frozenset({"\x00unnamed"})
# The value of the user's move, done and unnamed ("ПЕРЕЕХАЛИ", "got the keys today"): no home
# held before is theirs any more, unless it was the move itself, still ahead ("в пятницу
# переезжаем в свою квартиру").
_MOVED = frozenset({"\x00moved"})
# Slots with parts (nights, weekends, remote: cues' `scope`) that can end alone.
_PARTS = frozenset({Slot.JOB, Slot.HOME})
# Slots one person holds alone: another's job or home is not the user's (a relationship is
# two people's and a plan may be shared: `_whose`).
_OWN = frozenset({Slot.JOB, Slot.HOME})
# Who, as the subject of a relationship's end, is the user's partner ("my girlfriend left").
_PARTNERS = frozenset({"partner", "wife", "husband", "girlfriend", "boyfriend", "ex"})


@dataclass(frozen=True)
class Claim:
    slot: Slot
    holds: bool
    value: frozenset[str]  # content stems of the value; empty = any value
    change: bool  # the message says the slot changed ("now", "moved", "теперь")
    named: bool = False  # the value is a name ("Initech"), not a common noun ("the café")


def _value(raw: str | None) -> tuple[frozenset[str], bool]:
    if not raw or raw.casefold() in _ANY:
        return frozenset(), False
    return read(raw).stems, raw[:1].isupper()


def _names_a_time(raw: str | None) -> bool:
    """A value that is only a day or a month: "moved me to Wednesday" reschedules, it names no
    home (nor "started on Monday" an employer)."""
    stems = read(raw).stems if raw else frozenset()
    return bool(stems) and stems <= day_names(raw or "")


def _negations(clause: str, cues: LanguageCues) -> int:
    """Negations of a clause, less those of idioms that negate nothing ("can't wait") and of
    resolve to go on ("never give up", "не сдамся")."""
    idle = len(cues.not_negations.findall(clause)) + len(cues.resolve.findall(clause))
    return read(clause).negations - idle


# "no heating" negates a thing: where the older memory does not name it, the "no" flips nothing
# of its state ("the apartment in Capitol Hill has no heating again" after "I live in an
# apartment in Capitol Hill"); "no longer", "no more" negate the state itself.
_NO_THING = re.compile(r"\b(?:no|нет|никакой|никакого)\s+([^\W\d_]+)", re.IGNORECASE)
_NEGATE_THE_STATE = frozenset({"longer", "more", "way", "one", "больше"})


def _of_another_thing(clause: str, stems: frozenset[str]) -> int:
    """Negations in `clause` of a thing the older memory (its `stems`) does not name."""
    return sum(
        1
        for said in _NO_THING.finditer(clause)
        if said.group(1).casefold() not in _NEGATE_THE_STATE
        and not read(said.group(1)).stems & stems
    )


def _anothers_habit(clause: str, habit: HabitCues, cues: LanguageCues) -> bool:
    """Whether the habit is another person's: the clause's first word of it (the verb, or the
    habit itself) follows another subject ("my dad quit smoking", "папа бросил курить", "my
    sister bought a vape")."""
    said = [
        m
        for m in (
            habit.without.search(clause),
            habit.does.search(clause),
            cues.habit_negative.search(clause),
            cues.habit_change.search(clause),
            cues.habit_lapse.search(clause),  # "my sister bought a vape"
        )
        if m is not None
    ]
    return bool(said) and _subject(clause, min(said, key=lambda m: m.start()), cues) is not None


def _habits(clean: str, cues: LanguageCues) -> list[Claim]:
    """Habit claims, clause by clause: done unless negated, ended or said without ("not vegan
    anymore" negates a "without": done); a lapse ("had a vape", "закурил") says it changed."""
    found: list[Claim] = []
    relapsed = bool(cues.habit_relapse.search(clean))
    # A change said in a clause of its own ("thats me stopped altogether. no even the saturday
    # pints"): the habit a clause gives up there has changed.
    changed = bool(cues.habit_change.search(clean))
    previous = 0  # where the claims of the clause before this one start in `found`
    for clause in _CLAUSES.split(clean):
        if not clause.strip():
            continue  # ", а": the comma and the conjunction split nothing between them
        named = len(found)
        for habit in cues.habits:
            without = bool(habit.without.search(clause))
            if not without and not habit.does.search(clause):
                continue
            if _anothers_habit(clause, habit, cues):
                continue
            negative = len(cues.habit_negative.findall(clause)) + without
            negative -= len(cues.not_negations.findall(clause))
            # Owning up to a relapse, the habit is done again however the clause names it ("so
            # much for being off the booze", "вот тебе и без сладкого").
            done = negative % 2 == 0 or relapsed
            # Done once after giving it up ("had a vape", "выпила кофе"): a change of the habit,
            # unless only wanted or nearly done.
            lapse = done and (
                relapsed
                or bool(cues.habit_lapse.search(clause) and not cues.habit_lapse_not.search(clause))
            )
            found.append(
                Claim(
                    Slot.HABIT,
                    done,
                    frozenset({habit.name}),
                    bool(cues.habit_change.search(clause)) or lapse or (changed and not done),
                )
            )
        if len(found) == named and named - previous == 1 and _gives_up(clause, cues):
            # "раньше бегала по набережной, а как переехала забросила", "used to run every
            # morning but i stopped": a clause that gives up and names no habit gives up the
            # one habit the clause before named.
            found[-1] = Claim(Slot.HABIT, False, found[-1].value, True)
        previous = named
    return found


# A clause that is nothing but giving up: the user's verb with at most a lead-in of when
# ("since the move", "с тех пор как переехала"), a filler or two, an "it" and a time after it.
# "my dad quit", "i quit my job", "the rain stopped", "больше не могу сидеть дома" are not.
_GIVING_UP = re.compile(
    r"^\W*(?:(?:since|after|с тех пор как|после того как|после|как)\s+(?:the\s+|my\s+)?\w+\s+)?"
    r"(?:(?:i|я|and|а|but|но|then|потом|just|totally|completely|basically|вообще|совсем"
    r"|просто|так и|ну и)\s+)*"
    r"(?P<verb>\w+(?:\s+up)?)"
    r"(?:\s+(?:it|them|altogether|completely|for good|entirely|вообще|совсем|насовсем))?"
    r"(?:\s+(?:in|last|this|since|в|с|на)\s+\w+)?\W*$",
    re.IGNORECASE,
)


def _gives_up(clause: str, cues: LanguageCues) -> bool:
    """A clause that only says a habit ended ("вообще забросила", "but i stopped in june"): its
    verb both negates a habit and changes it, and no habit, the user's or another's, is named
    in it."""
    frame = _GIVING_UP.match(clause)
    if frame is None or any(h.does.search(clause) or h.without.search(clause) for h in cues.habits):
        return False
    verb = frame.group("verb")
    return bool(cues.habit_negative.fullmatch(verb) and cues.habit_change.fullmatch(verb))


def _clause_of(text: str, at: int) -> str:
    starts = [m.end() for m in _CLAUSES.finditer(text, 0, at)]
    end = _CLAUSES.search(text, at)
    return text[starts[-1] if starts else 0 : end.start() if end else len(text)]


def _of_a_part(text: str, match: re.Match[str], cues: LanguageCues) -> bool:
    """Whether the clause of an end names a part of the job or home beside the end's own words
    ("my last shift" ends the job; "don't teach on Fridays anymore" a part of it)."""
    clause = _clause_of(text, match.start())
    return bool(cues.scope.search(clause.replace(match.group(0), " ")))


_RU_NAMES_AS_WORDS = frozenset(
    {"роман", "вера", "надежда", "любовь", "лев", "слава", "мила", "роза", "лилия", "ян", "май"}
)


def _is_name(word: str, cues: LanguageCues) -> bool:
    """Whether a capitalised word before a claim is a person's name, not a sentence's first
    word ("Finally moved to Leeds", "Наконец переехали")."""
    if word in cues.not_names or word.casefold() in FUNCTION_WORDS | NEGATIONS:
        return False
    if cues.language == "ru":
        # Chat's lowercase names ("катин денис бросил курить"), save the names that are more
        # often words ("роман закончился", "любовь прошла").
        if word.islower():
            return word not in _RU_NAMES_AS_WORDS and is_nominative_name(word)
        return is_first_name(word)
    if word.islower():
        # Chat's lowercase names ("devon is moving to Austin"), by the list of first names:
        # "finally moved" and "mom is moving" stay the user's (a word, no one's name).
        # ... and typed without its apostrophe ("gareths handed his notice in").
        return any(
            gazetteer().name_of(form, inside=False) is not None
            for form in (word, word[:-1] if word.endswith("s") else word)
        )
    return not word.casefold().endswith("ly")


_GOVERNED = re.compile(
    r"\b(?:после|с|со|у|к|от|для|без|про|о|об|за|до|при|перед|в|во|на|по|из|через"
    r"|after|with|since|from)\s+$",
    re.IGNORECASE,
)


def _subject(text: str, match: re.Match[str], cues: LanguageCues) -> re.Match[str] | None:
    """The other person whose claim a match reads: its subject, right before it, is a relation
    word, a pronoun or a name ("my sister just moved to Glasgow", "сестра переехала в Казань");
    None when it is the user's (no such subject, or "I" or "me" beside it: "me and Jake", "they
    let me go")."""
    starts = [m.end() for m in _PUNCTUATION.finditer(text, 0, match.start())]
    before = text[starts[-1] if starts else 0 : match.start()]
    if cues.first_person.search(before + match.group(0)):
        return None
    subject = cues.someone_else.search(before)
    if subject is None or _GOVERNED.search(before[: subject.start()]):
        return None  # "после Кати ни с кем не встречаюсь": no subject after a preposition
    name = subject.group("name")
    if name is None or _is_name(name, cues):
        return subject
    # "sadia's moving to Manchester": a lowercase word with its "'s" right before the claim is
    # its subject, whether or not the list knows the name ("that's", "it's" are no one).
    contracted = before[subject.end("name") :].strip() in {"'s", "’s"}
    if (
        contracted
        and name.islower()
        and name.casefold() not in FUNCTION_WORDS | NEGATIONS | _NOT_SOMEONE
        and not cues.relation_words.fullmatch(name)  # "hubby's moving with me"
        and not re.match(r"\s*my\b", text[match.start() :], re.IGNORECASE)
    ):
        return subject
    return None


# Words with "'s" before a claim that are no one: "today's my last day", "tonight's my last
# shift", "everyone's moving".
_NOT_SOMEONE = frozenset(
    "today tomorrow tonight yesterday weekend monday tuesday wednesday thursday friday saturday "
    "sunday everyone everybody someone somebody nobody life work home this that what".split()
)


# A job or home said to be another's in its claim or right before it ("moving into his own
# flat", "starts at her new job"): the subject may stand clauses back ("picked craig up ... and
# moving"). Not "because of his new job we moved": the move is the user's.
_THEIR_OWN = re.compile(r"\b(?:his|her|their)\s+(?:own\s+|new\s+)", re.IGNORECASE)
_THEIRS_BEFORE = re.compile(r"\b(?:his|her|their)\s+(?:own\s+|new\s+)?$", re.IGNORECASE)


def _whose(
    text: str, match: re.Match[str], slot: Slot, ends: bool, cues: LanguageCues
) -> tuple[bool, str | None]:
    """Whether a match is a claim of the user's slot, and its value. Another's job or home is
    not the user's. A relationship ended by a partner ("my girlfriend left", "she's seeing
    someone else") is; one ended by a named person is that person's ("Паша ушёл к другой": the
    value is Паша, so it ends a relationship with Паша only); one of a relative or a friend
    ("my parents are divorcing") is not."""
    value = match.groupdict().get("value")
    if slot is Slot.JOB and value and cues.language == "ru" and is_place_name(value):
        return False, None  # "я сейчас в Москве": a city, not an employer
    their = _THEIR_OWN.search(match.group(0)) or _THEIRS_BEFORE.search(text[: match.start()])
    if slot in _OWN and their:
        return False, None  # "moving into his own flat in Govan": the home is his
    subject = _subject(text, match, cues)
    if subject is None or slot is Slot.PLAN:
        return True, value  # a plan is shared: "Anna called off the wedding" ends it
    if slot in _OWN:
        return False, None
    if subject.group("pronoun"):
        return True, value  # "she's seeing someone else": the partner, most likely
    if subject.group("name"):
        return ends, subject.group("name").capitalize()  # "маша рассталась": Маша, a name
    word = cues.relation_words.search(subject.group(0))
    if word is None:
        return False, None  # "my parents", "everyone": relatives and others, not a partner
    return cues.relations.get(word.group(0).casefold(), "") in _PARTNERS, value


def claims(text: str, cues: LanguageCues) -> tuple[Claim, ...]:
    """The slot claims a message or memory makes, ends before holds (a "quit" is never also
    read as a "work at"); not another person's job or home."""
    if cues is language_cues(cues.language):
        # Every piece of a batch is compared with the same recent memories: read each once.
        return _claims_in(text, cues.language)
    return _claims(text, cues)


@lru_cache(maxsize=4096)
def _claims_in(text: str, language: str) -> tuple[Claim, ...]:
    return _claims(text, language_cues(language))


def _claims(text: str, cues: LanguageCues) -> tuple[Claim, ...]:
    clean = normalise(text)
    found: list[Claim] = []
    for slot, slot_cues in cues.slots.items():

        def mine(
            patterns: Iterable[re.Pattern[str]], ends: bool = False, slot: Slot = slot
        ) -> list[tuple[re.Match[str], str | None]]:
            """The user's claims among the matches, each with its value."""
            kept = []
            for match in (m for p in patterns for m in p.finditer(clean)):
                users, value = _whose(clean, match, slot, ends, cues)
                value = _SENTENCE_END.split(value, 1)[0] if value else value
                if value and slot is Slot.PLAN:
                    value = _REASON.split(value, 1)[0]  # the plan, not why it changed
                if users and not (slot in _OWN and _names_a_time(value)):
                    kept.append((match, value))
            return kept

        change = bool(slot_cues.change.search(clean))
        ended = mine(slot_cues.ends, ends=True)
        if slot in _PARTS:
            # "I don't teach on Fridays anymore" ends one part of the job, not the job.
            ended = [(m, v) for m, v in ended if not _of_a_part(clean, m, cues)]
        if ended:
            for match, raw in ended:
                value, named = _value(raw)
                # A name typed in lowercase where only a name stands ("done with flanagans for
                # good"): named, so it ends that job only.
                named = named or bool(match.groupdict().get("named"))
                if slot is Slot.PLAN and not value:
                    # "the Japan trip isn't happening": the plan is what the clause names.
                    value = read(_clause_of(clean, match.start())).stems
                found.append(Claim(slot, False, value, change, named))
            continue
        held: list[Claim] = []
        for _, raw in mine(slot_cues.now):
            value, named = _value(raw)
            held.append(Claim(slot, True, value, True, named))
        for _, raw in mine(slot_cues.holds):
            value, named = _value(raw)
            held.append(Claim(slot, True, value, change, named))
        if not any(c.value for c in held) and mine(slot_cues.moved):
            held.append(Claim(slot, True, _MOVED, True, True))
        elif not any(c.value for c in held) and mine(slot_cues.other):
            held.append(Claim(slot, True, _UNNAMED, True, True))
        found += held
    if not any(c.slot is Slot.RELATIONSHIP and not c.holds for c in found):
        # A break-up the people reader reads ("rory ended it", "nadia and i called it a day"):
        # the relationship with that person ends, as the guide makes them an ex.
        for name in sorted(broken_up_with(text)):
            value, named = _value(name)
            found.append(Claim(Slot.RELATIONSHIP, False, value, True, named))
    found += _habits(clean, cues)
    return tuple(dict.fromkeys(found))


def contradicts(
    new: Claim,
    old: Claim,
    older_stems: frozenset[str] = frozenset(),
    light: frozenset[str] = frozenset(),
    moving: bool = False,
) -> bool:
    """Whether the newer claim makes the older one no longer true; `older_stems` are the content
    stems of the whole older memory (a value may stand anywhere in it); `light` words ("make",
    "time") are shared by too many values to say two are the same; `moving`: the older memory
    tells of a move still ahead, which a move done fulfils."""
    if new.slot is not old.slot:
        return False
    if new.slot is Slot.HABIT:
        # "I drink again" after "I don't drink": the same habit, the other way, said to change.
        return new.value == old.value and new.holds != old.holds and new.change
    if new.slot is Slot.PLAN:
        # The very plan, by the words of its own clause ("cancelled the Japan trip" after "flying
        # to Japan"), not words elsewhere in the older memory; taken up again only when said so
        # ("going to Japan after all").
        same = bool(new.value & old.value - light)
        return new.holds != old.holds and same and (new.change or not new.holds)
    shared = bool(new.value & (old.value | older_stems) - light)
    if not new.holds and old.holds:
        # An end of that value, or of any: unsaid, or a common noun ("quit the café"); not of
        # another named one ("left Globex" says nothing of Initech).
        return shared or not new.value or not new.named or not old.value
    if new.holds and old.holds:
        if new.value == _MOVED:
            return old.value != _MOVED and not moving
        if not (new.value and old.value) or shared:
            return False
        if new.value == _UNNAMED and new.slot is Slot.HOME and old.named:
            return False  # "my own flat" may well be in the city an older memory names
        # Another partner, or home, replaces the old one; another employer when the message
        # says so (two jobs at once are possible; "now" / "moved" / "теперь" is a change).
        return new.change or new.slot is Slot.RELATIONSHIP
    if new.holds and not old.holds:
        # A partner after "I'm single"; or back where an older claim said it ended ("I'm back
        # at Initech"): only the same value.
        if new.slot is Slot.RELATIONSHIP and not old.value:
            return True
        if new.slot is Slot.JOB and new.change and not old.value:
            # A job taken up after "I'm unemployed", "нигде не работаю", "retired": whatever
            # the employer, the user is out of work no longer.
            return True
        return shared and new.change
    return False


def _of_another(
    clause: str, said: re.Match[str], older: frozenset[str], cues: LanguageCues
) -> bool:
    """Whether a change is said of another person whom the older memory does not name: "Tom
    quit Initech" leaves "I work at Initech"; "Anna called off the party" ends "going to Anna's
    party"; "she cancelled" may be anyone's, so it counts."""
    subject = _subject(clause, said, cues) or _opening_subject(clause[: said.start()], cues)
    if subject is None or subject.group("pronoun"):
        return False
    who = read(subject.group(0)).stems
    return bool(who) and not who & older


def _opening_subject(before: str, cues: LanguageCues) -> re.Match[str] | None:
    """Another person opening the clause of a change said at its end ("my brother aint a
    driver no more"), when the user is not in it."""
    if cues.first_person.search(before):
        return None
    words = before.split()
    for n in (1, 2, 3):
        subject = cues.someone_else.search(" ".join(words[:n]))
        if subject is not None and len(words) > n:
            name = subject.group("name")
            if name is None or _is_name(name, cues):
                return subject
            if name[:1].isupper():
                return None  # a sentence's first word ("Finally"): the user's
    return None


# A reason is a clause of its own to `changes`: "moved to the 27th cuz marisol has to work" says
# nothing of the user's work.
_REASON = re.compile(
    r"\s(?:because|'?cause|cuz|cos|coz|bc|потому что|так как|из-за того,? что|из-за)\s",
    re.IGNORECASE,
)

# Two stems share this long a beginning: one word in two forms the stemmer splits ("переезд",
# "переезжа"; "подписан", "подписыва") or with a typo at its end ("скриниг", "скрининг").
_ALIKE_PREFIX = 6


def _alike(new: frozenset[str], old: frozenset[str]) -> frozenset[str]:
    """The older stems the newer ones name: the same, alike (`_ALIKE_PREFIX`), or clipped as
    chat clips words ("собес" for "собеседование", `_CLIPPED`)."""
    return frozenset(
        o
        for o in old
        if o in new
        or (len(o) >= _ALIKE_PREFIX and any(n[:_ALIKE_PREFIX] == o[:_ALIKE_PREFIX] for n in new))
        or any(len(n) >= _CLIPPED and o.startswith(n) for n in new)
    )


_CLIPPED = 5


_RU_PAST_ENDING = re.compile(r"(?:л|ла|ли|ло|лся|лась|лись|лось)$")


def _ahead(memory: str, cues: LanguageCues) -> bool:
    """Whether a memory tells of something still ahead, not over: "I was in the final last
    Saturday, and I won" names a day no later message can move or call off."""
    clean = normalise(memory)
    if cues.future.search(clean):
        return True
    # Russian past tense is read by its ending, which nouns share ("соло", "ансамбля" does
    # not, "стол" does): a word so ended counts only when it is a verb.
    return not any(
        cues.language != "ru" or not _RU_PAST_ENDING.search(m.group(0)) or is_verb(m.group(0))
        for m in cues.past.finditer(clean)
    )


def changes(text: str, older: str, cues: LanguageCues, min_shared: float) -> bool:
    """A state said to have changed about the older memory's subject: "I don't run anymore"
    after "I run every morning", "cancelled the Japan trip" after "flying to Japan in April".

    The two share content words (at least `min_shared` of the older memory's), and the newer
    says the change: a strong marker ("anymore", "cancelled", "больше не"), or a weak one ("now",
    "again", "теперь") with the negation flipped ("I drink again" after "I don't drink"). A
    change of one part ("not on the night rota anymore", "больше не работаю по выходным") leaves
    the rest of the older memory true.
    """
    clean = normalise(text)
    old = read(older)
    old_negations = _negations(normalise(older), cues)
    scoped_before = bool(cues.scope.search(normalise(older)))
    # A memory that names its day, told of what is still ahead, is one occasion ("the concert
    # is on March 20, I sing solo"): a strong change that names it by one content word moves or
    # ends it, however long the memory ("концерт перенесли на 3 апреля").
    old_days = day_names(older) if _ahead(older, cues) else frozenset()
    # Words that name no subject of their own: a day or a month ("resigned today, last day is
    # June 19" moves no trip on June 12), and the people the older memory names unless it is
    # an occasion ("Костя сломал руку, шерегеш отменяется" leaves "живу у друга Кости").
    people = _people_stems(older, cues.language)
    # Each clause with the clauses before it in its sentence; a sentence's first clause with the
    # sentence before it ("стоматолог звонила, сама заболела. перенесли на 17е": the dentist).
    clauses: list[tuple[str, str, str]] = []
    previous = ""
    for sentence in _SENTENCE_END.split(clean):
        parts = [p for c in _CLAUSES.split(sentence) for p in _REASON.split(c)]
        clauses += [
            (part, " ".join(parts[:i]) or previous, sentence) for i, part in enumerate(parts)
        ]
        previous = sentence
    proper = _proper_stems(older) - people
    occasion_only = bool(old_days) and all(c.slot is Slot.PLAN for c in claims(older, cues))
    for clause, before, sentence in clauses:
        said = cues.change_strong.search(clause)
        strong = bool(said)
        said = said or cues.change_weak.search(clause)
        # Whoever moves or calls off an occasion, it is the user's that changes ("Femi has moved
        # the extra rehearsal to the 18th"); another's job or home is theirs ("Tom quit Initech").
        if said is None or (not occasion_only and _of_another(clause, said, old.stems, cues)):
            continue
        if cues.scope.search(clause) and not scoped_before:
            continue
        # The subject must be shared in the clause that says the change: "not on the night
        # rota anymore, only day shifts at St. Mary's" did not change the job at St. Mary's.
        # A light word ("go") is a shared subject only beside a strong marker: "not going
        # anymore" ends "going to the concert"; "here they go again" changes nothing.
        if (
            strong
            and old_days
            and (
                # ... anywhere in its sentence ("двигаем на неделю, летим 21 марта вместо 14-го")
                _same_day_number(f"{before} {sentence}", old_days)
                or _moved_from_its_day(clause, old_days)
            )
        ):
            # The occasion's own day said beside the change ("мы с олей на концерт 17-го не
            # идём" after "concert on October 17", "moved from 14th april to 20 may"): the same
            # occasion, in whatever words (or language) the older memory names it.
            return True
        new = read(clause)
        if (
            strong
            and before
            and not (new.stems - read(said.group(0)).stems - cues.light - day_names(clause))
        ):
            # The change said with no object ("встреча выпускников через неделю, а я не иду,
            # передумала"; "стоматолог позвонил, 12-го не может, перенёс на 19 августа"): it
            # is of what its sentence names before it.
            new = read(f"{before} {clause}")
        when = day_names(clause) | day_names(older)
        if strong:
            # Beside a strong marker a word form the stemmer splits still names the subject:
            # "переезд переносим" after "мы переезжаем", "скриниг перенесли" (a typo) after
            # "скрининг 20 февраля".
            # The marker's own verb is no subject either: "перенесли" in "экзамен перенесли на
            # 15 января" does not make a moved trip that exam; and a light word counts only when
            # the clause names nothing else ("not going anymore"; "not going to chicago" leaves
            # a trip to Leavenworth).
            verb = read(said.group(0).split()[0]).stems
            alike = _alike(new.stems, old.stems) - when - verb
            own = new.stems - verb - when - cues.light - read(said.group(0)).stems
            if own and not alike - cues.light:
                continue
            shared = len(alike)
            occasion = bool(old_days and alike - old_days - cues.light)
        else:
            # The weak marker itself is no shared subject ("now" in "right now").
            alike = new.stems & old.stems - cues.light - when - read(said.group(0)).stems
            shared = len(alike)
            occasion = False
        # A proper name the older memory gives (not a person's) is its subject beside a strong
        # marker, however long the memory ("called off Branson" after "taking the grandkids
        # to Branson over spring break").
        named = strong and bool(alike & proper)
        if not old.stems or (
            shared < max(1.0, min_shared * len(old.stems)) and not occasion and not named
        ):
            continue
        if (
            alike & people
            and not alike - people - cues.light
            and not (old_days and _changer(clause[: said.start()]) & people)
        ):
            # A person alone names an occasion only, and only as the one who changed it
            # ("андрей перенёс приезд" after "в субботу приезжает Андрей"; "moving Ellie's
            # party" leaves "taking Ellie camping on September 26").
            continue
        if strong or (_negations(clause, cues) - _of_another_thing(clause, old.stems)) % 2 != (
            old_negations % 2
        ):
            return True
        # "the dentist is now on Friday" after "a dentist appointment on Thursday": the same
        # thing on another day.
        # A bare number is no day here ("a 12 year old" after "Ward 9").
        days = frozenset(d for d in day_names(clause) if not d.isdigit())
        days_before = frozenset(d for d in day_names(older) if not d.isdigit())
        moved = days and days_before and not days & days_before and (new.stems & old.stems) - days
        if moved and not cues.another.search(clause):
            return True
    return False


_DAY_NUMBER = re.compile(r"^\d{1,2}")


def _day_numbers(names: frozenset[str]) -> set[str]:
    """The days of the month among day names ("17", "17-го", "14th": 17, 17, 14)."""
    return {m.group(0) for m in map(_DAY_NUMBER.match, names) if m is not None}


def _same_day_number(text: str, old_days: frozenset[str]) -> bool:
    return bool(_day_numbers(old_days) & _day_numbers(day_names(text)))


_FROM_DAY = re.compile(r"\b(?:from|с|со)\s+(\w+)", re.IGNORECASE)


def _moved_from_its_day(text: str, old_days: frozenset[str]) -> bool:
    """A change from the occasion's own weekday ("репу перенесли с субботы на воскресенье"
    after "в субботу 19 сентября репетиция"): the same occasion, however the message names it."""
    return any(
        not m.group(1).isdigit() and day_names(m.group(1)) & old_days
        for m in _FROM_DAY.finditer(text)
    )


# Words after which a name is no subject: "переезд к Наташе сдвигаем" moves no visit of hers.
_PREPOSITIONS = frozenset(
    "к ко с со у для от до из за на в во по о об про при через with to for from at by of".split()
)


def _changer(text: str) -> frozenset[str]:
    """Stems of the words before a change marker that may be its subject: not those right
    after a preposition."""
    words = re.findall(r"[\w'-]+", text.casefold())
    return frozenset(
        s
        for i, word in enumerate(words)
        if not (i and words[i - 1] in _PREPOSITIONS)
        for s in read(word).stems
    )


_PROPER = re.compile(r"(?<![.!?…]\s)(?<!^)\b[A-ZА-ЯЁ][\w'&-]{2,}")


@lru_cache(maxsize=4096)
def _proper_stems(text: str) -> frozenset[str]:
    """Stems of the capitalised words inside `text`'s sentences (not opening one): the names
    of places, firms and events a memory gives ("Branson", "Анапу", "Dunleavy")."""
    return frozenset(s for m in _PROPER.finditer(text.strip()) for s in read(m.group(0)).stems)


@lru_cache(maxsize=4096)
def _people_stems(text: str, language: str) -> frozenset[str]:
    """Stems of the words by which `text` names people, as written there and in their base
    form ("с Вадимом": "вадим" and "вад")."""
    names = [
        p.casefold() for m in find_people(text, language_cues(language)) for p in m.name.split()
    ]
    stems = {stem(n) for n in names}
    for word in read(text).stems:
        stems |= {word for n in names if word[:4] == n[:4]}
    return frozenset(stems)


# A negated plan restates it: at most this many content words the older memory lacks ("not
# flying business class to Japan" negates the class, not the trip); when it is for ("this
# year", cues' `plan_when`) is no new word.
_PLAN_NEW_WORDS = 1
_NEGATED = re.compile(r"\b(?:not|never|no|не|n't)\s+(\w+)", re.IGNORECASE)


def _negates_an_act(clause: str, cues: LanguageCues, known: frozenset[str]) -> bool:
    """Whether a negation in the clause denies the act: Russian "не" stands right before what
    it denies ("не поеду" the trip, "поеду не одна" only the company, "не на поезде" the way);
    English negates the verb unless a preposition or an article follows ("not with ..."), and
    "no" the noun after it: the plan's own ("no gym tonight"), or another ("no time to
    prepare for the interview" leaves the interview)."""
    for match in _NEGATED.finditer(clause.replace("n't", " n't")):
        negation, word = match.group(0).split()[0].casefold(), match.group(1)
        if cues.language == "ru":
            if is_verb(word):
                return True
        elif negation == "no":
            if stem(word.casefold()) in known:
                return True
        elif not cues.negation_detail.fullmatch(word):
            return True
    return False


def _plan_negated(text: str, older: str, plans: list[Claim], cues: LanguageCues) -> bool:
    """A plan negated in a clause that names it: "в магистратуру не иду" after "хочу поступить
    в магистратуру", "not selling it" after "thinking of selling my car"; unless another clause
    says it the other way ("в Турцию не летим, а едем на машине": the trip stays)."""
    known = read(older).stems
    clauses = [cues.plan_when.sub(" ", c) for c in _CLAUSES.split(normalise(text))]
    negated = [
        _negations(c, cues) % 2 == 1
        and not (cues.pending.search(c) or cues.advice.search(c))
        and _negates_an_act(c, cues, known)
        for c in clauses
    ]
    for index, clause in enumerate(clauses):
        if not negated[index]:
            continue
        # A discourse marker adds no detail ("not doing the masters after all").
        stems = read(cues.plan_filler.sub(" ", clause)).stems
        # A day is no plan's subject ("not going to Galway on saturday" leaves "Cian is coming
        # on Saturday the 14th").
        days = day_names(clause)
        if not any(stems & plan.value - cues.light - days for plan in plans):
            continue
        if len(stems - known) > _PLAN_NEW_WORDS:
            continue
        restated = any(
            not negated[other]
            and read(clauses[other]).stems & known
            and any(c.slot is Slot.PLAN and c.holds for c in claims(clauses[other], cues))
            for other in range(len(clauses))
            if other != index
        )
        return not restated
    return False


_LAST_WORD = re.compile(r"\w+$")


@lru_cache(maxsize=4096)
def _cues_of(text: str) -> LanguageCues:
    return language_cues(detect_language(text))


@lru_cache(maxsize=4096)
def is_occasion(content: str) -> bool:
    """Whether a memory is an upcoming occasion: it names its day, tells of what is still ahead
    and claims nothing but a plan ("I'm taking Ellie to Rottnest on March 28")."""
    own = _cues_of(content)
    return (
        bool(day_names(content))
        and _ahead(content, own)
        and all(c.slot is Slot.PLAN for c in claims(content, own))
    )


def memory_slot(content: str) -> Slot | None:
    """The one slot an older memory holds a claim in, read in its own language (an upcoming
    occasion is a plan); None where it holds none or several."""
    if is_occasion(content):
        return Slot.PLAN
    own = _cues_of(content)
    held = {c.slot for c in claims(content, own) if c.holds}
    return held.pop() if len(held) == 1 else None


def _unnamed_habit_change(text: str, mine: tuple[Claim, ...], cues: LanguageCues) -> bool | None:
    """Whether the user does the habit now: True where the message owns up to a relapse, False
    where it gives a habit up once more; None otherwise or where a clause names the habit (then
    `contradicts` compares the two) or another person is the one who did it ("Серёга
    сорвался"), or the relapse is a temper lost ("сорвался на сына")."""
    if any(c.slot is Slot.HABIT for c in mine):
        return None
    clean = normalise(text)
    for pattern, holds in ((cues.habit_relapse_owned, True), (cues.habit_quit_again, False)):
        said = pattern.search(clean)
        # Whose: the subject before the marker's own last word ("Серёга сорвался").
        word = _LAST_WORD.search(clean, said.start(), said.end()) if said else None
        if word is None or _subject(clean, word, cues) is not None:
            continue
        if re.match(r"\s+на\s", clean[word.end() :]):
            continue
        return holds
    return None


def _by_what(plans: list[Claim], content: str, language: str) -> list[Claim]:
    """An occasion's plans told by what happens, not by who: a change of another plan with the
    same friend ("moving Ellie's party to the 24th" after "taking Ellie camping on September
    26") leaves it."""
    relations = language_cues(language).relation_words
    who = _people_stems(content, language) | {
        s for m in relations.finditer(content) for s in read(m.group(0)).stems
    }
    return [Claim(c.slot, c.holds, c.value - who, c.change) for c in plans if c.value - who]


def _hedged(clean: str, cues: LanguageCues) -> bool:
    """Whether doubt hedges the message's change: a hedge anywhere, unless the change is said
    first and the hedge only in a later clause, of what comes next ("staff do is off, might try
    for january instead")."""
    if cues.hedge.search(QUOTED.sub(" ", clean)) is None:
        return False  # doubt only in what someone said ("'maybe next year' she said")
    # Positions in the text as typed: chat's apostrophes ("trip's off. ally's") read as quotes.
    hedge = cues.hedge.search(clean)
    if hedge is None:
        return False
    said = cues.change_strong.search(clean) or cues.plan_changed.search(clean)
    return (
        said is None
        or said.start() > hedge.start()
        or not _NEXT_CLAUSE.search(clean, said.end(), hedge.start())
    )


_NEXT_CLAUSE = re.compile(
    r"[,;.!?]+|\s(?:but|and|so|since|because|cos|coz|а|но|и|так что|поэтому|потому что|так как)\s",
    re.IGNORECASE,
)


_MOVING = re.compile(
    r"\b(?:moving|will move|are moving|переезжа\w+|перееду|переедем|съезжа\w+)\b", re.IGNORECASE
)


def contradicted(
    text: str,
    older: Iterable[tuple[str, str]],
    cues: LanguageCues,
    *,
    min_shared: float = 0.2,
    similar: Callable[[str], float | None] | None = None,
    min_similar: float = 1.0,
    changed: Slot | None = None,
    min_changed: float = 1.0,
) -> tuple[str, ...]:
    """Ids of the older (id, content) memories `text` contradicts: by a slot claim, by a plan it
    negates, or by a change of the state they describe (`changes`); and, where the message says
    a plan changed but no older memory shares its words, the upcoming occasion `similar` (the
    calibrated similarity of an older memory's content to the message, None where unknown)
    puts closest to it, at `min_similar` or more ("Rotto's off" after "taking Ellie to
    Rottnest on March 28"). `changed`: the slot a reader of the message (`changes.ChangeHead`)
    is sure changed; where no rule hit, the older memory holding that slot that `similar` puts
    closest, at `min_changed` or more, is contradicted ("first night back in my childhood
    bedroom" after "I live in an apartment in Capitol Hill")."""
    if _hedged(normalise(text), cues):
        return ()
    older = list(older)
    mine = claims(text, cues)
    # A relapse owned up to, or a habit given up once more, with the habit named nowhere the
    # clause rules read it ("сорвался. вчера полпачки скурили", "неделю назад опять бросил"):
    # it is the habit an older memory says the user had given up (or taken up again).
    unnamed = _unnamed_habit_change(text, mine, cues)
    hits: list[str] = []
    occasions: list[tuple[float, str]] = []  # (similarity, id) of the occasions not hit
    for memory_id, content in older:
        # Each memory is read in its own language ("I smoke again" before "снова не курю").
        own = _cues_of(content)
        theirs = claims(content, cues if own.language == cues.language else own)
        if unnamed is not None and any(
            c.slot is Slot.HABIT and c.holds is not unnamed for c in theirs
        ):
            hits.append(memory_id)
            continue
        stems = read(content).stems
        moving = bool(_MOVING.search(content))  # a move still ahead, which a move done fulfils
        plans = [c for c in theirs if c.slot is Slot.PLAN and c.holds and c.value]
        days = day_names(content)
        if (
            not plans
            and days
            and _ahead(content, cues)
            and not any(c.slot is not Slot.PLAN for c in theirs)
        ):
            # A memory that names its day and claims nothing else is an occasion, a plan in
            # all but words ("I'm entering my leeks in the allotment show on August 29").
            plans = [Claim(Slot.PLAN, True, stems - days, False)]
        occasion = is_occasion(content)
        if (
            # An occasion's plan is compared too: "pushed lunch with bethan to the 26th" after
            # "I'm meeting Bethan for lunch on Saturday 19 September".
            any(
                contradicts(new, old, stems, cues.light, moving)
                for new in mine
                for old in (*theirs, *_by_what(plans, content, own.language))
            )
            or (plans and _plan_negated(text, content, plans, cues))
            or changes(text, content, cues, min_shared)
        ):
            hits.append(memory_id)
            if occasion:
                occasions.clear()
                similar = None  # an occasion named in words: no other is guessed at
        elif occasion and similar is not None:
            likeness = similar(content)
            if likeness is not None:
                occasions.append((likeness, memory_id))
    if occasions and not hits and cues.plan_changed.search(normalise(text)):
        likeness, memory_id = max(occasions)
        if likeness >= min_similar:
            hits.append(memory_id)
    # Where the rules read the message's own claim in that slot and found nothing to
    # contradict, the value is the same ("I live in Govan" said again): they decided.
    claimed = any(c.slot is changed and c.holds for c in mine)
    if changed is not None and not hits and similar is not None and not claimed:
        held = [
            (likeness, memory_id)
            for memory_id, content in older
            if memory_slot(content) is changed and (likeness := similar(content)) is not None
        ]
        if held and max(held)[0] >= min_changed:
            hits.append(max(held)[1])
    return tuple(dict.fromkeys(hits))
