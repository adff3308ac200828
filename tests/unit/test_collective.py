"""CollectiveImprint privacy gate (spec §3.7)."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.domain.collective import (
    CollectiveConfig,
    anonymity_threshold,
    gate,
    pseudonymize,
)

pytestmark = pytest.mark.unit

KEY = b"k" * 32


@pytest.mark.parametrize(
    ("active_users", "k"),
    [
        (0, 10),
        (9_999, 10),
        (10_000, 10),  # spec: a 10K-user instance uses k=10
        (10_001, 11),  # 10.001 rounds up, never down
        (100_000, 100),  # spec: a 100K-user instance uses k=100
        (1_234_567, 1_235),
    ],
)
def test_k_follows_the_spec_formula(active_users: int, k: int) -> None:
    assert anonymity_threshold(active_users) == k


def test_negative_population_is_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        anonymity_threshold(-1)


def test_a_pattern_graduates_at_exactly_k_distinct_users() -> None:
    users = [f"p{i}" for i in range(10)]
    assert not gate("retry-after-correction", users[:9], active_users=5_000).graduated
    decision = gate("retry-after-correction", users, active_users=5_000)
    assert (decision.graduated, decision.k, decision.missing) == (True, 10, 0)


def test_one_user_repeating_a_pattern_counts_once() -> None:
    decision = gate("pattern", ["same-user"] * 50, active_users=100)
    assert decision.distinct_contributors == 1
    assert decision.missing == 9
    assert not decision.graduated


def test_config_can_raise_the_floor_and_share() -> None:
    strict = CollectiveConfig(k_floor=25, active_user_share=Decimal("0.01"))
    assert anonymity_threshold(1_000, strict) == 25
    assert anonymity_threshold(10_000, strict) == 100


def test_k_is_exact_where_float_arithmetic_would_round_up() -> None:
    assert (
        anonymity_threshold(100, CollectiveConfig(k_floor=1, active_user_share=Decimal("0.07")))
        == 7
    )


def test_pseudonyms_are_stable_keyed_and_do_not_leak_the_id() -> None:
    first = pseudonymize("acme", "user-42", KEY)
    assert first == pseudonymize("acme", "user-42", KEY)
    assert first != pseudonymize("acme", "user-43", KEY)
    assert first != pseudonymize("other-tenant", "user-42", KEY)
    assert first != pseudonymize("acme", "user-42", b"x" * 32)
    assert "user-42" not in first
    # Shifting the boundary between tenant and user gives a different pseudonym.
    assert pseudonymize("a:b", "c", KEY) != pseudonymize("a", "b:c", KEY)


def test_short_pseudonym_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        pseudonymize("acme", "user-42", b"short")


@settings(max_examples=200)
@given(
    active_users=st.integers(0, 10_000_000),
    pseudonyms=st.lists(st.text(min_size=1, max_size=4), max_size=60),
)
def test_never_graduates_below_k(active_users: int, pseudonyms: list[str]) -> None:
    decision = gate("pattern", pseudonyms, active_users)
    k = anonymity_threshold(active_users)
    assert decision.graduated == (len(set(pseudonyms)) >= k)
    assert k >= 10 and k >= active_users / 1000
    assert k <= max(10, math.ceil(active_users / 1000))


@settings(max_examples=200)
@given(smaller=st.integers(0, 5_000_000), extra=st.integers(0, 5_000_000))
def test_k_never_shrinks_as_the_deployment_grows(smaller: int, extra: int) -> None:
    assert anonymity_threshold(smaller) <= anonymity_threshold(smaller + extra)


@settings(max_examples=100)
@given(
    active_users=st.integers(0, 50_000),
    contributors=st.lists(st.integers(0, 80), max_size=120),
)
def test_the_gate_counts_distinct_contributors(active_users: int, contributors: list[int]) -> None:
    decision = gate("p", (f"u{c}" for c in contributors), active_users)
    assert decision.distinct_contributors == len(set(contributors))
    assert decision.graduated == (decision.distinct_contributors >= decision.k)
