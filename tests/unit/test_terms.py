"""Search terms and lexical relevance (domain.terms) and how relevance enters the score."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from selfimprint.domain.scoring import Candidate, ScoringConfig, relevance, score
from selfimprint.domain.terms import idf_weights, lexical_relevance, search_terms

pytestmark = pytest.mark.unit

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def test_search_terms_are_content_stems_numbers_and_the_speaker() -> None:
    assert search_terms("Melanie: I painted a sunrise in 2022!") == (
        "2022",
        "melani",
        "paint",
        "sunris",
    )
    # A question's words meet the memory's: inflections share a stem, wh-words are dropped.
    assert set(search_terms("When did Melanie paint the sunrise?")) == {"melani", "paint", "sunris"}
    assert set(search_terms("Оля: Мы переехали в Казань")) == {"ол", "перееха", "казан"}


def test_idf_is_bm25s_and_only_for_terms_some_memory_holds() -> None:
    idf = idf_weights({"rare": 1, "common": 9, "absent": 0}, documents=10)
    assert set(idf) == {"rare", "common"}
    assert idf["rare"] == pytest.approx(math.log(1 + 9.5 / 1.5))
    assert idf["rare"] > idf["common"] > 0


def test_lexical_relevance_is_the_share_of_the_querys_information_held() -> None:
    idf = {"melani": 0.5, "sunris": 3.0}
    query = ("melani", "sunris", "unknown")
    assert lexical_relevance(query, ("melani", "sunris", "paint"), idf) == 1.0
    assert lexical_relevance(query, ("sunris",), idf) == pytest.approx(3.0 / 3.5)
    assert lexical_relevance(query, ("melani",), idf) == pytest.approx(0.5 / 3.5)
    assert lexical_relevance(query, (), idf) == 0.0
    # No memory holds a query term: no lexical evidence at all, similarity decides alone.
    assert lexical_relevance(("unknown",), ("melani",), idf) is None


def candidate(similarity: float, lexical: float | None) -> Candidate:
    return Candidate(
        id="m", similarity=similarity, effective_weight=0.5, last_touched_at=NOW, lexical=lexical
    )


def test_relevance_mixes_similarity_and_lexical_by_the_share() -> None:
    assert relevance(candidate(0.6, None)) == 0.6
    assert relevance(candidate(0.6, 1.0)) == pytest.approx(0.8)
    assert relevance(candidate(0.6, 1.0), ScoringConfig(lexical_share=0.0)) == 0.6
    # The memory that names what the query names wins over a closer embedding that does not.
    named, vague = candidate(0.4, 1.0), candidate(0.6, 0.0)
    assert score(named, NOW).score > score(vague, NOW).score
