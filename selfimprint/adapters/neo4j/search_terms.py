"""Search terms for memories stored before retrieval matched a query's words (issue 19).

Every write stores `terms` (records.node_row, `domain.terms.search_terms`); a memory written
earlier has none and is found by similarity alone until this backfill gives it its terms. It
runs in batches, is safe to repeat and to interrupt, and touches nothing else: no weight,
expiry or reinforcement moves. `selfimprint db backfill-terms` runs it.
"""

from __future__ import annotations

from neo4j import AsyncDriver

from selfimprint.domain.terms import search_terms

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
