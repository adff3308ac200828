"""The API's memory of users whose lifecycle it signalled recently (the acceptance fast path)."""

from __future__ import annotations

from api.recently_seen import RecentlySeen


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_key_is_seen_until_its_time_is_up() -> None:
    clock = Clock()
    seen = RecentlySeen(ttl_s=60, max_entries=10, clock=clock)
    seen.add("t/u")
    clock.now = 59.9
    assert "t/u" in seen
    clock.now = 60.0
    assert "t/u" not in seen


def test_the_oldest_key_goes_first_when_full_and_discard_forgets() -> None:
    seen = RecentlySeen(ttl_s=60, max_entries=2, clock=Clock())
    for key in ("a", "b", "a", "c"):  # "a" re-added: "b" is now the oldest
        seen.add(key)
    assert ("a" in seen, "b" in seen, "c" in seen) == (True, False, True)
    seen.discard("a")
    assert "a" not in seen
