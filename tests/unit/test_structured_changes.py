"""A change read by the change head (issue 34): where no rule reads a contradiction, a message the
head is sure says a slot changed contradicts the older memory holding that slot closest to it,
through `structured_extraction`: both sides of `change_likely` and of `change_match`."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from selfimprint.adapters.type_reader import E5_MODEL_ID
from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType
from selfimprint.domain.structured.changes import ChangeHead, change_head_for
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_compare,
    texts_to_embed,
)
from selfimprint.domain.structured.head import Softmax
from selfimprint.domain.structured.slots import contradicted, memory_slot
from selfimprint.domain.structured.slots_model import Slot

pytestmark = pytest.mark.unit

FLOOR = 0.5
# No rule reads a move here: the head's reading is all there is.
TEXT = "handed the keys back for the Govan flat this morning, Cardonald woman noo"
FLAT = RecentMemory(id="flat", type=NodeType.FACT, content="I live in a tenement flat in Govan.")
JOB = RecentMemory(id="job", type=NodeType.FACT, content="I work at Hillpark Primary.")
HOME_AGAIN = RecentMemory(id="old", type=NodeType.FACT, content="I live in a flat in Paisley.")
MESSAGE = Message(id="m1", role=Role.USER, text=TEXT, sent_at=datetime(2026, 9, 2, tzinfo=UTC))


def _head(slot: str, probability: float) -> ChangeHead:
    """A head that reads `slot` with `probability` from any vector."""
    logit = math.log(probability / (1.0 - probability))
    return ChangeHead("test", Softmax(("none", slot), ((0.0, 0.0), (0.0, 0.0)), (0.0, logit)))


def _at(calibrated: float) -> list[float]:
    """A unit vector whose calibrated similarity to [1, 0] is `calibrated`."""
    cosine = FLOOR + calibrated * (1.0 - FLOOR)
    return [cosine, math.sqrt(1.0 - cosine * cosine)]


def _contradicted(
    head: ChangeHead | None, likeness: dict[str, float], recent: list[RecentMemory]
) -> set[str]:
    vectors = dict.fromkeys(texts_to_embed([MESSAGE], recent), [0.0, 1.0])
    vectors[TEXT] = [1.0, 0.0]
    for memory in recent:
        vectors[memory.content] = _at(likeness.get(memory.id, 0.0))
    answer = structured_extraction(
        [MESSAGE], recent, vectors, None, similarity_floor=FLOOR, changes=head
    )
    return {i for c in answer.candidates for i in c.contradicts_memory_ids}


def test_the_slot_an_older_memory_holds() -> None:
    assert memory_slot(FLAT.content) is Slot.HOME
    assert memory_slot(JOB.content) is Slot.JOB
    assert memory_slot("I'm doing the Kiltwalk on 26 April.") is Slot.PLAN  # an occasion
    assert memory_slot("Я работаю в аптеке на Ленина.") is Slot.JOB
    assert memory_slot("I love a good bingo night.") is None


def test_a_change_the_head_is_sure_of_at_the_threshold() -> None:
    likely = DEFAULT_STRUCTURED.change_likely
    sure, unsure = _head("home", likely + 0.01), _head("home", likely - 0.01)
    likeness = {"flat": 0.6}
    assert _contradicted(sure, likeness, [FLAT, JOB]) == {"flat"}
    assert _contradicted(unsure, likeness, [FLAT, JOB]) == set()
    assert _contradicted(None, likeness, [FLAT, JOB]) == set()  # the rules alone


def test_the_memory_must_be_close_enough_and_hold_the_slot() -> None:
    match = DEFAULT_STRUCTURED.change_match
    sure = _head("home", 0.99)
    assert _contradicted(sure, {"flat": match + 0.01}, [FLAT, JOB]) == {"flat"}
    assert _contradicted(sure, {"flat": match - 0.01}, [FLAT, JOB]) == set()
    # The job is closest, but the head read a home that changed.
    assert _contradicted(sure, {"flat": 0.3, "job": 0.9}, [FLAT, JOB]) == {"flat"}
    # Of two homes, the closer one.
    assert _contradicted(sure, {"flat": 0.3, "old": 0.5}, [FLAT, HOME_AGAIN]) == {"old"}
    assert _contradicted(_head("job", 0.99), {"flat": 0.9}, [FLAT]) == set()


def test_only_where_no_rule_hit_nor_a_hedge_stands() -> None:
    def similar(content: str) -> float:
        return 0.9

    english = cues("en")
    older = [(JOB.id, JOB.content), (FLAT.id, FLAT.content)]
    quit = "handed in my notice at Hillpark today"
    assert contradicted(quit, older, english) == ("job",)  # a rule's hit
    # The head's home beside it adds nothing: the rules spoke.
    assert contradicted(
        quit, older, english, similar=similar, changed=Slot.HOME, min_changed=0.25
    ) == ("job",)
    hedged = "maybe I'll hand the keys back for the Govan flat"
    assert contradicted(hedged, older, english, similar=similar, changed=Slot.HOME) == ()


def test_the_older_memories_are_embedded_only_for_a_change_read() -> None:
    vectors = {TEXT: [1.0, 0.0]}
    assert texts_to_compare([MESSAGE], [FLAT, JOB], vectors, _head("home", 0.99)) == [FLAT.content]
    assert texts_to_compare([MESSAGE], [FLAT, JOB], vectors, _head("home", 0.5)) == []
    assert texts_to_compare([MESSAGE], [FLAT, JOB], vectors, None) == []


def test_the_shipped_head_reads_the_e5_embedder_only() -> None:
    head = change_head_for(E5_MODEL_ID)
    assert head is not None
    assert set(head.slots.labels) == {"none", *(s.value for s in Slot)}
    assert change_head_for("another-embedder") is None


def test_a_restatement_is_no_change() -> None:
    # The rules read the message's own home and found it the same: the head does not overrule.
    said_again = "I live in a tenement flat in Govan, top floor"
    older = [(FLAT.id, FLAT.content)]
    assert (
        contradicted(
            said_again,
            older,
            cues("en"),
            similar=lambda c: 0.95,
            changed=Slot.HOME,
            min_changed=0.25,
        )
        == ()
    )
    assert contradicted(
        TEXT, older, cues("en"), similar=lambda c: 0.95, changed=Slot.HOME, min_changed=0.25
    ) == ("flat",)
