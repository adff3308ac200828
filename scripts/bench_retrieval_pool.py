"""Retrieval's candidate pool: the 20 nearest alone (before) against the 20 nearest plus the M
best before similarity (`scoring.prior`, after; several M), side by side in one run on one
Neo4j.

For a user of `--memories` memories (real multilingual-e5 embeddings of synthetic sentences,
60 days of history, mixed types and weights, a decay clock with a 3-week absence) it times
`retrieve` + ranking for each query with both pools, alternating, and checks each pool's top 20
against the exact answer: the §3.4 score computed in Python over every memory of the user.

    .venv/bin/python scripts/bench_retrieval_pool.py [--memories 1000 10000] [--queries 100]
        [--pools 20:0 50:100 100:100 200:200]

Prints a Markdown table and replaces the `## Retrieval pool` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from bench_api import OBJECTS, SUBJECTS, synthetic_node, synthetic_sentences
from bench_graph import pct, start_neo4j

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.config import Settings
from selfimprint.devstack.report import replace_section
from selfimprint.domain.decay import ActivityTimeline, node_effective_weight
from selfimprint.domain.models import Node
from selfimprint.domain.scoring import Candidate, calibrated_similarity, rank
from selfimprint.domain.terms import idf_weights, lexical_relevance, search_terms
from selfimprint.domain.users import UserProfile, UserScope
from selfimprint.ports import RetrievalQuery

NOW = datetime.now(UTC).replace(microsecond=0)


async def load(settings: Settings, scope: UserScope, n: int) -> list[Node]:
    rng = random.Random(7)
    embedder = build_embedder(settings)
    texts = synthetic_sentences(n, rng)
    vectors: list[list[float]] = []
    for i in range(0, n, 256):
        vectors += embedder.embed_passages(texts[i : i + 256])
    driver = open_driver(settings)
    try:
        await Neo4jGraphStore(driver, settings.neo4j_database).migrate()
        await Neo4jAccounts(driver, settings.neo4j_database).put_profile(scope, UserProfile())
        store = Neo4jGraphStore(driver, settings.neo4j_database).for_user(
            scope.tenant_id, scope.user_id
        )
        # Active for 3 weeks, away 3 weeks, active the last 18 days.
        active = [NOW - timedelta(days=60 - d) for d in range(0, 21)]
        active += [NOW - timedelta(days=18 - d) for d in range(0, 19)]
        timeline = await store.record_activity(active)
        nodes = []
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
            at = NOW - timedelta(days=rng.uniform(0, 60))
            weight = rng.uniform(0.2, 1.0)
            nodes.append(
                synthetic_node(
                    i, scope.user_id, text, vector, embedder.model_id, at, weight, timeline
                )
            )
        for i in range(0, n, 1000):
            await store.upsert(nodes[i : i + 1000])
        return nodes
    finally:
        await driver.close()


Lexicon = tuple[tuple[str, ...], dict[str, set[str]], dict[str, float]]


def true_top(
    scored: list[tuple[Node, float]],
    floor: float,
    timeline: ActivityTimeline,
    lexicon: Lexicon | None,
) -> set[str]:
    """The 20 best by the whole score over every live memory (with lexical relevance when the
    query's terms are sent)."""
    return {
        s.id
        for s in rank(
            (
                Candidate.from_node(
                    n,
                    similarity=calibrated_similarity(c, floor),
                    effective_weight=node_effective_weight(n, NOW, timeline=timeline),
                    lexical=None
                    if lexicon is None
                    else lexical_relevance(lexicon[0], lexicon[1][n.id], lexicon[2]),
                )
                for n, c in scored
            ),
            NOW,
        )
    }


async def measure(
    settings: Settings, scope: UserScope, nodes: list[Node], queries: int, pools: list[str]
) -> dict[str, tuple[list[float], int]]:
    embedder = build_embedder(settings)
    floor = embedder.similarity_floor
    rng = random.Random(11)
    questions = [
        f"What about {rng.choice(OBJECTS)} and {rng.choice(SUBJECTS)}?" for _ in range(queries)
    ]
    vectors = embedder.embed_queries(questions)
    driver = open_driver(settings)
    results: dict[str, tuple[list[float], int]] = {p: ([], 0) for p in pools}
    try:
        store = Neo4jGraphStore(driver, settings.neo4j_database).for_user(
            scope.tenant_id, scope.user_id
        )
        timeline = await store.decay_clock()
        matrix = np.asarray([n.embedding for n in nodes])
        alive = [n for n in nodes if not (n.expires_at and n.expires_at <= timeline.reading(NOW))]
        alive_ids = {n.id for n in alive}
        node_terms = {n.id: set(search_terms(n.content)) for n in alive}
        for round_ in range(2):  # the first round warms plans and caches; only the second counts
            for i, (question, vector) in enumerate(zip(questions, vectors, strict=True)):
                terms = search_terms(question)
                frequency = Counter(t for ts in node_terms.values() for t in ts & set(terms))
                idf = idf_weights(frequency, len(alive))
                cosines = matrix @ np.asarray(vector)

                truth = {
                    lexical: true_top(
                        [
                            (n, float(c))
                            for n, c in zip(nodes, cosines, strict=True)
                            if n.id in alive_ids
                        ],
                        floor,
                        timeline,
                        (terms, node_terms, idf) if lexical else None,
                    )
                    for lexical in (False, True)
                }
                order = pools if i % 2 else pools[::-1]
                for label in order:
                    near, prior, lexical = (int(x) for x in (label + ":0").split(":")[:3])
                    started = time.perf_counter()
                    found = await store.retrieve(
                        RetrievalQuery(
                            embedding=tuple(vector),
                            embedding_model=embedder.model_id,
                            now=NOW,
                            nearest_limit=near,
                            prior_limit=prior,
                            similarity_floor=floor,
                            terms=terms if lexical else (),
                            lexical_limit=lexical,
                        )
                    )
                    top = rank(
                        (
                            Candidate.from_node(
                                c.node,
                                similarity=calibrated_similarity(c.cosine, floor),
                                effective_weight=node_effective_weight(
                                    c.node, NOW, timeline=found.timeline
                                ),
                                lexical=c.lexical,
                            )
                            for c in found.candidates
                        ),
                        NOW,
                    )
                    elapsed = (time.perf_counter() - started) * 1000
                    if round_ == 1:
                        ms, found_ids = results[label]
                        ms.append(elapsed)
                        # Recall of the exact top 20 (as a set: float32 cosines in Neo4j and
                        # float64 here reorder near-ties).
                        hits = len({t.id for t in top} & truth[bool(lexical)])
                        results[label] = (ms, found_ids + hits)
        return results
    finally:
        await driver.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--pools",
        nargs="+",
        default=["20:0", "50:100", "50:100:50", "100:100", "200:200"],
        help="pools to compare, as nearest:best-before-similarity[:lexical]; 20:0 is the old "
        "read path; a lexical pool also sends the question's search terms",
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-pool-"))
    settings, neo4j = start_neo4j(root, "2g", "1g")
    rows = []
    try:
        for size in args.memories:
            scope = UserScope("benchpool", f"u{size}")
            nodes = asyncio.run(load(settings, scope, size))
            results = asyncio.run(measure(settings, scope, nodes, args.queries, args.pools))
            for label in args.pools:
                ms, hits = results[label]
                rows.append((size, label, statistics.median(ms), pct(ms, 0.95), hits, len(ms)))
                sys.stderr.write(f"{size} {label} {rows[-1]}\n")
    finally:
        neo4j.stop()
        shutil.rmtree(root, ignore_errors=True)
    lines = [
        "## Retrieval pool",
        "",
        f"`.venv/bin/python scripts/bench_retrieval_pool.py --memories "
        f"{' '.join(map(str, args.memories))} --queries {args.queries} --pools "
        f"{' '.join(args.pools)}` on {platform.machine()} "
        f"with {os.cpu_count()} cores (Neo4j and the client on the same machine). Store "
        "`retrieve` (one statement, one-hop expansion included) plus the §3.4 ranking, the "
        "pools alternated query by query; 'recall of the true top 20': how many of the 20 best "
        "memories by the score computed over every memory of the user the pool's top 20 holds.",
        "",
        "| memories | pool | p50 | p95 | recall of the true top 20 |",
        "| ---: | --- | ---: | ---: | ---: |",
    ]
    for size, label, p50, p95, hits, total in rows:
        near, best, lexical = (label + ":0").split(":")[:3]
        pool = f"{near} nearest" + (f" + {best} best before similarity" if int(best) else "")
        pool += f" + {lexical} lexical (terms sent)" if int(lexical) else ""
        pool += " (before)" if label == "20:0" else ""
        recall = hits / (20 * total)
        lines.append(f"| {size:,} | {pool} | {p50:.1f} ms | {p95:.1f} ms | {recall:.3f} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if not args.no_write:
        replace_section(text)


if __name__ == "__main__":
    main()
