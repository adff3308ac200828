"""Structured extraction without a large model: typed memories in the user's own words.

For each user message (a long one in runs of whole sentences, as verbatim extraction cuts it):
- its type (fact, event, emotional note, person, open loop, or nothing: small talk) and valence
  from a reader (`head`: a classifier head on the message's embedding, or the fine-tuned
  reader of its tokens, `selfimprint.adapters.type_reader`), moved by the cues of
  `data/cues.toml` (an open-loop phrasing, a feeling, a date, an occasion);
- the days it names, resolved against `sent_at` (`dates`);
- the people it names, and a person memory for each one whose relation to the user it says
  ("my colleague Marta"), in the words it says it with (`people`);
- a causal connective ("because", "из-за") links it to the memory its cause names (`caused_by`),
  found by embedding among the batch and the memories the extractor was shown; with no such
  memory, the cause part becomes a memory of its own;
- the older memories whose slot (job, home, relationship, plans) it contradicts (`slots`).

Every memory's content is a span of the user's message, so the grounding guard holds by
construction; the guard still checks (domain.ingestion applies it to every extractor).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.ingestion.extraction import (
    MAX_CANDIDATES,
    MAX_EXTRACTED_EDGES,
    MAX_MENTIONS,
    CandidateEvidence,
    CandidateType,
    ExtractedEdge,
    ExtractedMemory,
    Extraction,
    NearReading,
    RecentMemory,
)
from selfimprint.domain.language import detect_language
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import EdgeType, NodeType, Valence
from selfimprint.domain.reply_context import asks_a_question
from selfimprint.domain.structured.changes import ChangeHead
from selfimprint.domain.structured.cues import LanguageCues, cues, normalise
from selfimprint.domain.structured.dates import resolve_dates
from selfimprint.domain.structured.head import NONE, KnownReadings, TypeReader
from selfimprint.domain.structured.mentions import SENTENCE_BREAK
from selfimprint.domain.structured.pairs import PairReader, paired_contradictions
from selfimprint.domain.structured.people import (
    PersonMention,
    find_people,
    likeliest_relation,
    organisations,
)
from selfimprint.domain.structured.slots import contradicted, is_occasion, memory_slot
from selfimprint.domain.structured.slots_model import Slot
from selfimprint.domain.structured.topics import topic_runs
from selfimprint.domain.terms import FUNCTION_WORDS, LABEL, read, same_speaker
from selfimprint.domain.verbatim_extraction import pieces

_TYPES = tuple(t.value for t in CandidateType)
_CLAUSE_END = re.compile(r"[,;.!?]")


def _default_importance() -> dict[CandidateType, float]:
    # Project choice, the prompt's scale: 0.5 ordinary; an open matter or a feeling a little
    # more; a dated event more still (dated_event_importance). None reaches the spec's
    # significant-event threshold (0.8): only a model's judgement should pin an event.
    return {
        CandidateType.FACT: 0.5,
        CandidateType.EVENT: 0.6,
        CandidateType.EMOTIONAL_NOTE: 0.6,
        CandidateType.PERSON: 0.5,
        CandidateType.OPEN_LOOP: 0.6,
    }


class StructuredConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Same cap as every memory (IngestionConfig.max_content_chars): longer messages are split.
    max_chars: int = Field(300, ge=20)
    # Where the fine-tuned reader of the tokens runs (issue 34, adapters.type_reader), the
    # share of the linear head on the sentence vector in the probabilities the two are
    # averaged to. Chosen on train writers held out of the reader's training (p29-p32, type
    # accuracy through the cues: 0 0.814, 0.25 0.811, 0.5 0.823, 1 0.730): two readers that
    # err differently disagree most where a message is borderline (docs/decisions.md).
    head_share: float = Field(0.5, ge=0.0, le=1.0)
    # Added to the head's probability of a type whose cue the message holds. Issue 34: on the
    # train personas the head alone reads types better (0.882 against 0.852 with 0.35), but it
    # then reads the demo's "The Globex interview went badly, I froze ..." as a feeling (0.46
    # against 0.39): kept at 0.35 until the head reads reports right on its own.
    cue_bonus: float = Field(0.35, ge=0.0, le=2.0)
    # How many open-loop cues of one message each add `cue_bonus`. Issue 34: a message that says
    # twice that a thing is pending ("так и не начал ..., постоянно откладываю", "can't decide
    # whether ...") is an open loop in all 11 of the 15,620 train and dev messages that do; counting
    # one let the demo's put-off interview prep read as a fact (docs/decisions.md). Feelings
    # are not counted so: two emotion cues are an emotional note in 31 of 44.
    open_loop_cues_counted: int = Field(2, ge=1, le=3)
    # Added to the event score when the message resolves a date. Issue 34: a date says when,
    # not what: plans and deadlines (open loops), facts with a since and feelings about a day
    # carry dates too, and the dated bonus made "event" the commonest misreading of every
    # other type on new writers. Per-cue sweep (train / dev personas type accuracy): the
    # shipped 0.35 gives 0.905 / 0.700, 0 gives 0.933 / 0.718; no other cue's weight moved dev
    # by more than 0.004 (docs/decisions.md).
    dated_event_bonus: float = Field(0.0, ge=0.0, le=2.0)
    # A message is dropped as small talk only when "none" wins by this margin over the best
    # type: forgetting what the user said costs more than remembering a greeting.
    none_margin: float = Field(0.15, ge=0.0, le=1.0)
    # ... and only when it is short: LoCoMo's chatty turns open with a greeting and go on to say
    # what happened (with the head alone, 301 of its 688 evidence turns were read as small
    # talk). Issue 34: new writers' requests to the assistant and pleasantries run longer
    # ("can you help me word a birthday toast for ..."); 12 reads types better on the train
    # personas (0.853 -> 0.906) and dev (0.659 -> 0.702), and LoCoMo's text recall @400 is
    # unchanged beside 6 (+0.001, paired; BENCHMARKS.md, docs/decisions.md).
    none_max_words: int = Field(12, ge=0)
    # Issue 33: types whose score is within this of the chosen one are "near" readings; the
    # memory decays on the slowest curve among them (NearReading). Tuned on the train personas
    # (scripts/eval_decay_curves.py; docs/decisions.md "When the type is uncertain").
    near_margin: float = Field(0.1, ge=0.0, le=1.0)
    # ... and never when it answers a question (the message it replied to asks one,
    # domain.reply_context) with at least this many content words: "I added some sage for a
    # nice flavor" after "what spices did you use?" is the answer, not a pleasantry, while
    # "good, thanks" after "how are you?" stays small talk. LoCoMo dev: 6 of the 17 evidence
    # turns the extractor dropped (docs/decisions.md, "Batch size ... answers").
    answer_min_words: int = Field(3, ge=1)
    # Issue 34: where the reader of the tokens reads names (adapters.type_reader, a logistic
    # head on its token states), an English word it reads as a person's name with at least
    # `name_likely` is one wherever it stands ("Fergal is taking Aoife to Belfast": names no
    # list holds), and a name the rules found whose every word it reads below `name_unlikely`
    # is dropped ("Telekom says"). Chosen on train writers held out of the head (p11, p13: people
    # recall 0.791 -> 0.930 at precision 0.835 -> 0.836; docs/decisions.md).
    name_likely: float = Field(0.98, ge=0.0, le=1.0)
    name_unlikely: float = Field(0.1, ge=0.0, le=1.0)
    # A lowercase word it reads as a name with at least `name_possible` is one where a relation
    # word stands beside it ("pete my running coach", "tita nene", "hazel next door"): chat's
    # names that no list holds, or holds as everyday words. Chosen on train writers, p41-p48
    # included: 18 of 20 such names pass 0.6, 2 of 19 words wrongly found there do
    # (docs/decisions.md, "Lowercase names, habits without their names and occasions in other
    # words").
    name_possible: float = Field(0.6, ge=0.0, le=1.0)
    # Where the relation reader runs (adapters.relation_reader), a person the rules name
    # without a relation gets the one it reads with at least this probability, if that beats
    # its "none" and no one else in the message holds it (domain.structured.people). Chosen on
    # p137-p144, writers the reader was trained without (scripts/train_relation_reader.py
    # --hold): relation accuracy EN 0.580 -> 0.636 and RU 0.784 -> 0.818, relations given to
    # people labelled with none EN 0.040 -> 0.056, RU 0.042 (unchanged); 0.5 reads two more
    # right for four more given to no one's (docs/decisions.md, "A relation reader"). 1.0:
    # the rules' relations alone.
    relation_likely: float = Field(0.7, ge=0.0, le=1.0)
    # The words either side of a name, within its sentence, that the person memory of a
    # relation the reader read quotes.
    person_window: int = Field(4, ge=1, le=20)
    # A message that says a plan changed ("Rotto's off", "операцию перенесли") and shares no
    # word with the occasion it changes ("taking Ellie to Rottnest on March 28", "hip replacement
    # on March 18") changes the recent occasion its embedding is closest to, when the calibrated
    # similarity reaches this: chosen on train writers (docs/decisions.md, "Lowercase names,
    # habits without their names and occasions in other words").
    occasion_match: float = Field(0.27, ge=0.0, le=1.0)
    # Where no rule reads a contradiction, a message the change head (`changes.ChangeHead`)
    # reads as a change of a slot with at least `change_likely` contradicts the older memory
    # holding that slot whose calibrated similarity to it is highest, when that reaches
    # `change_match` ("first night back in my childhood bedroom"). Chosen on the train writers,
    # five folds by writer, against up to 8 of the writer's earlier memories as distractors
    # (docs/decisions.md, "Learned readers for who and what changed").
    change_likely: float = Field(0.8, ge=0.0, le=1.0)
    change_match: float = Field(0.25, ge=0.0, le=1.0)
    # Where a pair reader reads this embedder (`pairs`, adapters.contradiction_reader), a message
    # the change head gives some change at least `pair_gate` is read against the one older fact,
    # event or open loop sharing the most words with it (`pair_memories`; `pairs.most_related`),
    # and that memory is contradicted too where the reader gives `pair_likely` or more (older
    # memories only: a line said earlier in the same batch is left to the rules). Out of fold by
    # writer over the 110 train writers of that day, with 8 unlabelled earlier memories beside
    # each message: rules + reader read EN 0.825 at 0.928 and RU 0.809 at 0.929 of the labelled
    # pairs (rules alone 0.788 at 0.943, 0.757 at 0.933), 81 right for 40 wrong (18 of them
    # unlabelled memories ended); reading 2 memories adds 2 right for 132 more wrong, and 0.9
    # adds next to nothing (`scripts/train_contradiction_reader.py --folds 5`; docs/decisions.md,
    # "A reader of the memory and the message together, built and left off"). ~10 ms a pair on
    # one core. Off by default: on LoCoMo's two-friend conversations every ending it added was wrong
    # ("Hey Mel! Long time no talk!" ending the last greeting; text recall @400 0.655 -> 0.650),
    # and on the fourteenth test writers it ended six labelled memories rightly for five wrongly.
    # True loads and runs it (an operator's choice, in the tuning file).
    pair_reader: bool = False
    pair_gate: float = Field(0.2, ge=0.0, le=1.0)
    pair_likely: float = Field(0.8, ge=0.0, le=1.0)
    pair_memories: int = Field(1, ge=1)
    # How much a new memory of each type, and a dated event, weighs at first (project choices,
    # `_default_importance`).
    importance: Mapping[CandidateType, float] = Field(default_factory=_default_importance)
    dated_event_importance: float = Field(0.7, ge=0.0, le=1.0)
    # A cause (or an "after") names the latest memory holding at least this share of its
    # content words; with none, the memory whose calibrated cosine ((cos - floor) / (1 - floor))
    # exceeds cause_match. Project choice: e5-small alone does not tell "the failed interview"
    # from the other interview memories (their calibrated cosines differ by ~0.02); the words
    # and the latest mention do.
    cause_shared_words: float = Field(0.5, gt=0.0, le=1.0)
    cause_match: float = Field(0.45, ge=0.0, le=1.0)
    # A cause part with fewer content words than this is too short to be a memory of its own
    # ("because of my knees" links or is dropped; "due to the venue flooding" is news).
    cause_min_words: int = Field(2, ge=1)
    # Project choice: a piece shorter than this ("ok", "да") is no memory.
    min_chars: int = Field(8, ge=1)


DEFAULT_STRUCTURED = StructuredConfig()


@dataclass(frozen=True)
class _Piece:
    ref: str
    message: Message
    text: str
    cues: LanguageCues


@dataclass(frozen=True)
class _Causal:
    effect: str  # the part of the piece that is the effect
    cause: str  # the part that is the cause


def _pieces(messages: Sequence[Message], config: StructuredConfig) -> list[_Piece]:
    out: list[_Piece] = []
    for index, message in enumerate(messages):
        if message.role is not Role.USER:
            continue
        runs = [r for r in pieces(message.text, config.max_chars) if len(r) >= config.min_chars]
        language_cues = cues(detect_language(message.text))
        for part, text in enumerate(runs, 1):
            ref = f"s{index + 1}" if len(runs) == 1 else f"s{index + 1}.{part}"
            out.append(_Piece(ref, message, text, language_cues))
    return out


def _tidy(fragment: str) -> str:
    return fragment.strip(" ,;:—-–").strip()


def _causal(text: str, language_cues: LanguageCues) -> _Causal | None:
    clean = normalise(text)
    after = language_cues.cause_after.search(clean)
    if after:
        effect, cause = clean[: after.start()], clean[after.end() :]
    else:
        before = language_cues.cause_before.search(clean)
        if not before:
            return None
        cause, effect = clean[: before.start()], clean[before.end() :]
    if after:
        # The cause is the clause the connective opens: "из-за провального собеседования, надо
        # было готовиться" -> "провального собеседования".
        cause = _CLAUSE_END.split(cause, maxsplit=1)[0]
    effect, cause = _tidy(effect), _tidy(cause)
    return _Causal(effect, cause) if effect and cause else None


# A feeling or an event "after X" came after the memory X names (followed_by).
_AFTER_TYPES = frozenset({CandidateType.EMOTIONAL_NOTE, CandidateType.EVENT})


def _after(text: str, language_cues: LanguageCues) -> str | None:
    match = language_cues.after.search(normalise(text))
    if not match:
        return None
    what = _CLAUSE_END.split(normalise(text)[match.end() :], maxsplit=1)[0]
    return _tidy(what) or None


def texts_to_read(
    messages: Sequence[Message], config: StructuredConfig = DEFAULT_STRUCTURED
) -> list[str]:
    """What `structured_extraction` reads a type of: every piece, the runs after a topic shift,
    the effect and cause of a causal piece, and what an "after" follows."""
    return _read_texts(messages, config)[0]


def _read_texts(
    messages: Sequence[Message], config: StructuredConfig
) -> tuple[list[str], bool, bool]:
    """`texts_to_read`, whether a piece has a cause or an "after" to link, and whether one says
    a plan changed."""
    texts: list[str] = []
    links = changed = False
    for piece in _pieces(messages, config):
        texts.append(piece.text)
        texts.extend(topic_runs(piece.text, piece.cues.topic_shift)[1:])
        causal = _causal(piece.text, piece.cues)
        if causal:
            texts.extend((causal.effect, causal.cause))
        after = _after(piece.text, piece.cues)
        if after:
            texts.append(after)
        links = links or bool(causal or after)
        # A plan moved or called off is matched against the older occasions by embedding too
        # (slots.contradicted's `similar`): "Rotto's off" after "taking Ellie to Rottnest".
        changed = changed or bool(piece.cues.plan_changed.search(normalise(piece.text)))
    return list(dict.fromkeys(texts)), links, changed


def texts_to_embed(
    messages: Sequence[Message],
    recent: Sequence[RecentMemory],
    config: StructuredConfig = DEFAULT_STRUCTURED,
) -> list[str]:
    """What `structured_extraction` needs passage vectors of: what it reads (`texts_to_read`),
    and, when there is a cause or an "after" to link, the recent memories (when a plan changed,
    the recent occasions)."""
    texts, links, changed = _read_texts(messages, config)
    if links:
        # Only a cause or an "after" is matched against any older memory by embedding;
        # embedding them for every batch would triple its cost (bench_api).
        texts.extend(r.content for r in recent)
    elif changed:
        # A changed plan only against the upcoming occasions.
        texts.extend(r.content for r in recent if is_occasion(r.content))
    return list(dict.fromkeys(texts))


def _changed_slot(
    changes: ChangeHead | None, vector: Sequence[float] | None, config: StructuredConfig
) -> Slot | None:
    """The slot the change head is sure `vector`'s message says changed."""
    change = changes.change(vector) if changes is not None and vector is not None else None
    sure = change is not None and change.probability >= config.change_likely
    return change.slot if change is not None and sure else None


def texts_to_compare(
    messages: Sequence[Message],
    recent: Sequence[RecentMemory],
    vectors: Mapping[str, Sequence[float]],
    changes: ChangeHead | None,
    config: StructuredConfig = DEFAULT_STRUCTURED,
) -> list[str]:
    """The recent memories still to embed once `texts_to_embed`'s vectors are in: those holding
    a slot the change head is sure a piece says changed (`slots.contradicted`'s `changed`).
    Only those, and only then: the head reads a change in about one message in ten."""
    slots = {
        slot
        for piece in _pieces(messages, config)
        if (slot := _changed_slot(changes, vectors.get(piece.text), config)) is not None
    }
    if not slots:
        return []
    wanted = (r.content for r in recent if r.content not in vectors)
    return list(dict.fromkeys(c for c in wanted if memory_slot(c) in slots))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


class NameReadings(TypedDict):
    likely: list[str]
    unlikely: list[str]
    possible: list[str]
    read_relations: dict[str, tuple[str, float]]


def name_readings(
    head: TypeReader | None,
    text: str,
    vector: Sequence[float] | None,
    config: StructuredConfig = DEFAULT_STRUCTURED,
) -> NameReadings:
    """`find_people`'s `likely`, `unlikely` and `possible` words of `text`, where the reader
    reads words, and the relations it reads (`relation_likely`) of the people words name."""
    reading = head.reading(text, vector) if head is not None else None
    odds = reading.names if reading is not None else {}
    relations = reading.relations if reading is not None else {}
    return {
        "likely": [w for w, p in odds.items() if p >= config.name_likely],
        "unlikely": [w for w, p in odds.items() if p < config.name_unlikely],
        "possible": [w for w, p in odds.items() if p >= config.name_possible],
        "read_relations": {
            w: found
            for w, read in relations.items()
            if config.relation_likely < 1.0
            and (found := likeliest_relation(read, config.relation_likely)) is not None
        },
    }


@dataclass(frozen=True)
class TypeReading:
    """What the extractor decided about one piece (also what scripts/eval_extraction.py scores)."""

    type: str  # a CandidateType value, or "none"
    valence: Valence | None
    scores: Mapping[str, float]

    def near(self, margin: float) -> tuple[CandidateType, ...]:
        """The other types scored within `margin` of the chosen one (none for small talk)."""
        if self.type == NONE:
            return ()
        top = self.scores[self.type]
        return tuple(
            CandidateType(t)
            for t in _TYPES
            if t != self.type and self.scores.get(t, 0.0) >= top - margin
        )


def read_type(
    text: str,
    vector: Sequence[float] | None,
    language_cues: LanguageCues,
    head: TypeReader | None,
    *,
    dated: bool,
    config: StructuredConfig = DEFAULT_STRUCTURED,
    whole: str | None = None,
    answers: bool = False,
) -> TypeReading:
    """`whole`: the message `text` is a piece of (a long message is read in runs of sentences):
    only a short message can be small talk, whatever its pieces look like alone. `answers`:
    the message replied to a question."""
    clean = normalise(text)
    scores = dict.fromkeys((*_TYPES, NONE), 0.0)
    valence_p: dict[str, float] = {}
    reading = head.reading(text, vector) if head is not None else None
    if reading is not None:
        scores.update(reading.types)
        valence_p = reading.valence
    bonus = config.cue_bonus
    scores[CandidateType.OPEN_LOOP.value] += bonus * _held(
        language_cues.open_loop, clean, config.open_loop_cues_counted
    )
    if language_cues.emotion.search(clean):
        scores[CandidateType.EMOTIONAL_NOTE.value] += bonus
    if dated:
        scores[CandidateType.EVENT.value] += config.dated_event_bonus
    if any(p.search(clean) for p in language_cues.event[:1]):
        scores[CandidateType.EVENT.value] += bonus / 2
    if language_cues.person.search(clean):
        scores[CandidateType.PERSON.value] += bonus
    # A transcript line's label ("Nate: see ya!") is not what was said: the small-talk cues,
    # anchored at the words' start, read what follows it.
    labelled = LABEL.match(clean)
    said = labelled.group(2) if labelled else clean
    if language_cues.small_talk.search(said) and not language_cues.self_reference.search(said):
        scores[NONE] += bonus
    best_type = max(_TYPES, key=lambda t: scores[t])
    if head is None and scores[best_type] == 0.0:
        best_type = CandidateType.FACT.value  # no head, no cue: what verbatim would store
    chosen = NONE if scores[NONE] > scores[best_type] + config.none_margin else best_type
    said_words = read(whole or text)
    words = len(said_words.stems)
    # An answer's numbers are what it says ("I won twice", "three kids"): they count there.
    answer_words = words + len(said_words.numbers)
    if chosen == NONE and (
        words > config.none_max_words or (answers and answer_words >= config.answer_min_words)
    ):
        chosen = best_type  # a long message that opens with "Thanks, Mel!" still says something
    valence = _valence(chosen, valence_p)
    return TypeReading(chosen, valence, scores)


def _held(cue: re.Pattern[str], text: str, most: int) -> int:
    """How many of a type's cues the text holds, up to `most`."""
    return min(sum(1 for _ in cue.finditer(text)), most)


def _valence(chosen: str, p: Mapping[str, float]) -> Valence | None:
    # Only an emotional note carries a valence (the Node model's rule; reinforcement matches
    # type and valence), and it always does: the likelier of the two.
    if chosen != CandidateType.EMOTIONAL_NOTE.value:
        return None
    positive, negative = p.get("positive", 0.0), p.get("negative", 0.0)
    return Valence.POSITIVE if positive > negative else Valence.NEGATIVE


_POSSESSIVE_BEFORE = re.compile(r"\b(?:my|our|мой|моя|моего|моей|моему|мою|наш|наша)\s+$", re.I)


def _person_content(text: str, mention: PersonMention, window: int) -> str:
    """What a person memory quotes: the relation word and the name ("My colleague Marta"); for
    a relation a reader read from the whole message, the `window` words either side of the
    name within its sentence ("a couples counsellor today, Jenny"), where the words that say
    who they are most often stand."""
    start, end = mention.start, mention.end
    if mention.read:
        sentence_start = max((m.end() for m in SENTENCE_BREAK.finditer(text, 0, start)), default=0)
        after = SENTENCE_BREAK.search(text, end)
        sentence_end = after.start() if after else len(text)
        before = list(_WORD_START.finditer(text, sentence_start, start))
        start = before[-window].start() if len(before) >= window else sentence_start
        later = list(_WORD_END.finditer(text, end, sentence_end))
        end = later[window - 1].end() if len(later) >= window else sentence_end
    else:
        possessive = _POSSESSIVE_BEFORE.search(text[:start])
        if possessive:
            start = possessive.start()
    span = text[start:end].strip()
    return span[:1].upper() + span[1:]


_WORD_START = re.compile(r"(?<!\S)\S")  # where each whitespace-separated word starts
_WORD_END = re.compile(r"\S(?!\S)")  # ... and where each ends


def structured_extraction(
    messages: Sequence[Message],
    recent: Sequence[RecentMemory],
    vectors: Mapping[str, Sequence[float]],
    head: TypeReader | None,
    *,
    similarity_floor: float,
    config: StructuredConfig = DEFAULT_STRUCTURED,
    replies: Mapping[str, str] | None = None,
    changes: ChangeHead | None = None,
    pairs: PairReader | None = None,
) -> Extraction:
    """The batch's candidates and edges; `vectors` holds passage vectors of `texts_to_embed`
    and `texts_to_compare`; `replies`: message id -> the text it replied to
    (`ExtractionBatch.replies`); `changes`: the change head, and `pairs` the pair reader,
    where they read this embedder."""
    replies = replies or {}
    if head is not None:
        # Every text the batch reads, read at once: a reader of tokens batches its forward pass.
        head = KnownReadings(head.readings(texts_to_read(messages, config), vectors), head)
    candidates: list[ExtractedMemory] = []
    edges: list[ExtractedEdge] = []
    near: list[NearReading] = []
    # Names of the people the user already told of (their person memories' capitalised words).
    known_names = [
        word
        for r in recent
        if r.type is NodeType.PERSON
        for word in re.findall(r"[A-ZА-ЯЁ][a-zа-яё]+", r.content)
        if word.casefold() not in FUNCTION_WORDS
    ]
    places = organisations([r.content for r in recent] + [m.text for m in messages])
    older = [(r.id, r.content) for r in recent]
    typed_older = [(r.id, r.content, r.type) for r in recent]
    # What the batch's earlier messages said (message id, ref, content): a message can contradict
    # a line said minutes before it, in the same batch, as well as an older memory.
    said: list[tuple[str, str, str]] = []
    linkable: list[tuple[str, str]] = [(r.id, r.content) for r in recent]

    def add(
        piece: _Piece,
        ref: str,
        content: str,
        kind: CandidateType,
        valence: Valence | None,
        dates: Sequence[str],
        people: Sequence[str],
        contradicts: Sequence[str],
    ) -> None:
        importance = config.importance[kind]
        if kind is CandidateType.EVENT and dates:
            importance = max(importance, config.dated_event_importance)
        candidates.append(
            ExtractedMemory(
                ref=ref,
                type=kind,
                content=content,
                importance=importance,
                valence=valence,
                dates_mentioned=tuple(dates[:MAX_MENTIONS]),
                people=tuple(people[:MAX_MENTIONS]),
                evidence_kind=CandidateEvidence.SELF_REPORT,
                source_message_ids=(piece.message.id,),
                contradicts_memory_ids=tuple(contradicts[:MAX_MENTIONS]),
            )
        )

    def typed(piece: _Piece, text: str, dated: bool) -> TypeReading:
        return read_type(
            text,
            vectors.get(text),
            piece.cues,
            head,
            dated=dated,
            config=config,
            whole=piece.message.text,
            answers=asks_a_question(replies.get(piece.message.id, "")),
        )

    def best_match(text: str, exclude: str) -> str | None:
        """The memory a cause or an "after" names: the latest one that holds the most of its
        content words ("the interview" is the interview last spoken of); with none in common
        (another language), the one the embeddings agree on most, if they agree enough."""
        vector = vectors.get(text)
        words = read(text).stems
        by_words, most = None, config.cause_shared_words
        by_vector, closest = None, config.cause_match
        for ref, content in linkable:
            if ref == exclude:
                continue
            shared = len(words & read(content).stems) / len(words) if words else 0.0
            if shared >= most:  # later mentions win ties
                by_words, most = ref, shared
            other = vectors.get(content)
            if vector is not None and other is not None:
                similar = (_cosine(vector, other) - similarity_floor) / (1.0 - similarity_floor)
                if similar > closest:
                    by_vector, closest = ref, similar
        return by_words or by_vector

    for piece in _pieces(messages, config):
        sent_at = piece.message.sent_at
        dates = [d.isoformat() for d in resolve_dates(piece.text, sent_at, piece.cues)]
        mentions = find_people(
            piece.text,
            piece.cues,
            known_names,
            not_people=places,
            **name_readings(head, piece.text, vectors.get(piece.text), config),
        )
        names = [m.name for m in mentions]
        reading = typed(piece, piece.text, bool(dates))
        if reading.type == NONE:
            # Small talk as a whole may turn to the user's news after a topic shift ("Wow, how
            # did the show go? By the way, I'm allergic to peanuts."): the first later run that
            # is not small talk read alone types the piece, which keeps all its words
            # (domain.structured.topics).
            for run in topic_runs(piece.text, piece.cues.topic_shift)[1:]:
                news = typed(piece, run, bool(dates))
                if news.type != NONE:
                    reading = news
                    break
        said_before = [(ref, text) for message, ref, text in said if message != piece.message.id]
        spoken = piece.text
        vector = vectors.get(piece.text)

        def similar(content: str, vector: Sequence[float] | None = vector) -> float | None:
            other = vectors.get(content)
            if vector is None or other is None:
                return None
            return (_cosine(vector, other) - similarity_floor) / (1.0 - similarity_floor)

        # A transcript's line never ends another speaker's (`ingestion.contradictions`): only
        # the same speaker's lines are read, so the reader's one pick is one of them.
        own = [(ref, line) for ref, line in older + said_before if same_speaker(spoken, line)]
        contradicts = list(
            contradicted(
                piece.text,
                own,
                piece.cues,
                similar=similar,
                min_similar=config.occasion_match,
                changed=_changed_slot(changes, vector, config),
                min_changed=config.change_match,
            )
        )
        if pairs is not None:
            paired = paired_contradictions(
                piece.text,
                [m for m in typed_older if same_speaker(spoken, m[1])],
                pairs,
                change=changes.change_odds(vector) if changes and vector else None,
                gate=config.pair_gate,
                likely=config.pair_likely,
                limit=config.pair_memories,
            )
            contradicts += [ref for ref in paired if ref not in contradicts]
        if reading.type == NONE and not mentions and not contradicts:
            continue
        kind = CandidateType(reading.type if reading.type != NONE else CandidateType.FACT.value)
        valence = reading.valence
        causal = _causal(piece.text, piece.cues)
        content = piece.text
        if causal is not None and piece.cues.emotion.search(normalise(causal.effect)):
            # "Злюсь на себя из-за провала, надо было...": the effect is what the sentence
            # says, the cause explains it; a feeling there makes the memory an emotional note,
            # whatever the explanation's words lean to (the head read "надо было" as open).
            felt = typed(piece, causal.effect, False)
            if felt.type == CandidateType.EMOTIONAL_NOTE.value:
                kind, valence = CandidateType.EMOTIONAL_NOTE, felt.valence
        cause_ref: str | None = None
        if causal is not None:
            cause_ref = best_match(causal.cause, exclude=piece.ref)
            if cause_ref is None and len(read(causal.cause).stems) >= config.cause_min_words:
                # The cause is news: it becomes a memory of its own, in the user's words.
                cause_reading = typed(piece, causal.cause, False)
                cause_kind = CandidateType(
                    cause_reading.type if cause_reading.type != NONE else "fact"
                )
                cause_ref = f"{piece.ref}.c"
                add(
                    piece,
                    cause_ref,
                    causal.cause,
                    cause_kind,
                    cause_reading.valence,
                    dates,
                    names,
                    (),
                )
                linkable.append((cause_ref, causal.cause))
        add(piece, piece.ref, content, kind, valence, dates, names, contradicts)
        if kind.value == reading.type and (close := reading.near(config.near_margin)):
            near.append(NearReading(ref=piece.ref, types=close))
        linkable.append((piece.ref, content))
        said.append((piece.message.id, piece.ref, content))
        after = _after(piece.text, piece.cues) if kind in _AFTER_TYPES else None
        earlier = best_match(after, exclude=piece.ref) if after else None
        if earlier is not None and earlier != cause_ref:
            edges.append(
                ExtractedEdge(source_ref=piece.ref, target_ref=earlier, type=EdgeType.FOLLOWED_BY)
            )
        if cause_ref is not None:
            edges.append(
                ExtractedEdge(source_ref=piece.ref, target_ref=cause_ref, type=EdgeType.CAUSED_BY)
            )
        for number, mention in enumerate(mentions, 1):
            # Someone named by their relation gets a person memory of their own ("My colleague
            # Marta"), unless the sentence says who they are ("My sister Anya is a nurse": the
            # person cue) and was read as a person memory: a sentence of what they did ("My
            # colleague Marta offered...") may read as person or not, and the person should
            # not hinge on it.
            person = _person_content(piece.text, mention, config.person_window)
            says_who = kind is CandidateType.PERSON and piece.cues.person.search(
                normalise(piece.text)
            )
            if mention.relation is None or person == content or says_who:
                continue
            add(
                piece,
                f"{piece.ref}.p{number}",
                person,
                CandidateType.PERSON,
                None,
                (),
                (mention.name,),
                (),
            )
            known_names.append(mention.name)
    kept = {c.ref for c in candidates[:MAX_CANDIDATES]}
    return Extraction(
        candidates=tuple(candidates[:MAX_CANDIDATES]),
        edges=tuple(edges[:MAX_EXTRACTED_EDGES]),
        near=tuple(n for n in near if n.ref in kept),
    )
