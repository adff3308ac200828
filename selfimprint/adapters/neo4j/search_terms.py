"""Search terms in Neo4j: the Lucene queries over the `memory_terms` index, and the backfill
for memories stored before retrieval matched a query's words (issue 19).

Every write stores `terms` (records.node_row, `domain.terms.search_terms`); a memory written
earlier has none and is found by similarity alone until this backfill gives it its terms. It
runs in batches, is safe to repeat and to interrupt, and touches nothing else: no weight,
expiry or reinforcement moves. `selfimprint db backfill-terms` runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import AsyncDriver

from selfimprint.domain.terms import search_terms

# The full-text index over each memory's terms and scope (migration 0041).
TERM_INDEX = "memory_terms"


def _phrase(token: str) -> str:
    """One token as a Lucene phrase: inside quotes only the quote and the backslash are special,
    so no term or scope key can widen the query."""
    return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'


def any_term_query(scope_key: str, terms: Sequence[str]) -> str:
    """The user's memories holding any of these terms (the scope token is required)."""
    alternatives = " OR ".join(_phrase(t) for t in dict.fromkeys(terms))
    return f"scope:{_phrase(scope_key)} AND terms:({alternatives})"


def term_queries(scope_key: str, terms: Sequence[str]) -> dict[str, Any]:
    """Statement parameters: one query per term (its document frequency among the user's
    memories) and one for memories holding any of them (the lexically best)."""
    mine = f"scope:{_phrase(scope_key)}"
    return {
        "term_queries": [
            {"t": t, "q": f"{mine} AND terms:{_phrase(t)}"} for t in dict.fromkeys(terms)
        ],
        "any_term_query": any_term_query(scope_key, terms),
    }


_MISSING = """
MATCH (n:Memory) WHERE n.terms IS NULL
RETURN n.scope AS scope, n.id AS id, n.content AS content LIMIT $batch
"""
_SET = """
UNWIND $rows AS row
MATCH (n:Memory {scope: row.scope, id: row.id}) WHERE n.terms IS NULL
SET n.terms = row.terms
"""


async def backfill_search_terms(driver: AsyncDriver, database: str, batch: int = 1_000) -> int:
    """Give every memory without search terms its terms; returns how many were written."""
    written = 0
    while True:
        records, _, _ = await driver.execute_query(_MISSING, batch=batch, database_=database)
        if not records:
            return written
        rows = [
            {"scope": r["scope"], "id": r["id"], "terms": list(search_terms(r["content"] or ""))}
            for r in records
        ]
        await driver.execute_query(_SET, rows=rows, database_=database)
        written += len(rows)
