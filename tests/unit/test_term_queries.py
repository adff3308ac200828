"""The Lucene queries over the memory_terms index: every one requires the user's scope token,
and no term or scope key can close its phrase and widen the query."""

from __future__ import annotations

import pytest

from selfimprint.adapters.neo4j.search_terms import any_term_query, term_queries

pytestmark = pytest.mark.unit


def test_every_query_requires_the_scope_and_names_each_term_once() -> None:
    params = term_queries("t1/u1", ["kazan", "piano", "kazan"])
    assert params["any_term_query"] == 'scope:"t1/u1" AND terms:("kazan" OR "piano")'
    assert params["term_queries"] == [
        {"t": "kazan", "q": 'scope:"t1/u1" AND terms:"kazan"'},
        {"t": "piano", "q": 'scope:"t1/u1" AND terms:"piano"'},
    ]


def test_quotes_and_backslashes_stay_inside_their_phrase() -> None:
    query = any_term_query('t"/u', ['a" OR scope:*', "b\\"])
    assert query == 'scope:"t\\"/u" AND terms:("a\\" OR scope:*" OR "b\\\\")'
