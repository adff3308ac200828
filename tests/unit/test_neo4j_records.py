"""The Neo4j row codec: instants as epoch numbers, quiet parameter lists."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from selfimprint.adapters.neo4j.records import (
    Rows,
    epoch_parts,
    from_epoch_micros,
    split_times,
)

instants = st.datetimes(
    min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
)


@given(instants)
def test_epoch_parts_and_micros_round_trip_exactly(value: datetime) -> None:
    seconds, nanos = epoch_parts(value)
    assert 0 <= nanos < 1_000_000_000
    # What Cypher's `epochMillis * 1000 + nanosecond / 1000 % 1000` gives back (epochMillis
    # floors, nanosecond is the fraction of the second).
    millis = seconds * 1_000 + nanos // 1_000_000
    assert from_epoch_micros(millis * 1_000 + nanos // 1_000 % 1_000) == value


def test_before_the_epoch_floors_like_java_instant() -> None:
    half_before = datetime(1969, 12, 31, 23, 59, 59, 500_000, tzinfo=UTC)
    assert epoch_parts(half_before) == [-1, 500_000_000]


def test_offsets_are_instants() -> None:
    at_utc = datetime(2026, 1, 1, 3, tzinfo=UTC)
    moscow = at_utc.astimezone(timezone(timedelta(hours=3)))
    assert moscow.hour == 6
    assert epoch_parts(moscow) == epoch_parts(at_utc)


def test_split_times_keeps_none_in_props_so_it_clears_the_stored_value() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    props, times = split_times({"content": "x", "created_at": at, "expires_at": None})
    assert props == {"content": "x", "expires_at": None}
    assert times == {"created_at": epoch_parts(at)}


def test_rows_repr_is_short_and_the_list_is_unchanged() -> None:
    rows = Rows([0.5] * 10_000)
    assert repr(rows) == "<10000 rows>"
    assert rows == [0.5] * 10_000
