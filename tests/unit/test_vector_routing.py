"""Which retrieval path a user gets: the vector index only pays off for users who own a
large share of it, and only users above the exact-scan threshold are in it."""

from __future__ import annotations

from selfimprint.adapters.neo4j.retrieval import GraphSize, VectorSearchConfig, index_fetch

CONFIG = VectorSearchConfig(exact_scan_max_nodes=2_000, max_index_fetch=1_000)


def test_users_outside_the_index_are_scanned() -> None:
    assert index_fetch(20, GraphSize(1_500, 0, 50_000), CONFIG) is None
    # Big enough, but not indexed yet (just rehydrated): still the scan.
    assert index_fetch(20, GraphSize(10_000, 0, 50_000), CONFIG) is None


def test_the_over_fetch_follows_the_users_share_of_the_index() -> None:
    # Alone in the index: K x safety.
    assert index_fetch(20, GraphSize(10_000, 10_000, 10_000), CONFIG) == 40
    # A quarter of it: four times as many.
    assert index_fetch(20, GraphSize(10_000, 10_000, 40_000), CONFIG) == 160


def test_a_small_share_falls_back_to_the_scan() -> None:
    # 40 x (1,000,000 / 10,000) = 4,000 > max_index_fetch
    assert index_fetch(20, GraphSize(10_000, 10_000, 1_000_000), CONFIG) is None


def test_the_threshold_decides_who_joins_the_index() -> None:
    assert not CONFIG.wants_index(2_000)
    assert CONFIG.wants_index(2_001)
