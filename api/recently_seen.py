"""A small time-limited memory of keys seen recently (here: users whose lifecycle workflow the
API has just signalled). Pure, so the acceptance fast path's bookkeeping is unit-tested."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class RecentlySeen:
    def __init__(
        self, ttl_s: float, max_entries: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        at = self._seen.get(key)
        if at is None:
            return False
        if self._clock() - at >= self._ttl_s:
            del self._seen[key]
            return False
        return True

    def add(self, key: str) -> None:
        self._seen[key] = self._clock()
        self._seen.move_to_end(key)
        while len(self._seen) > self._max:
            self._seen.popitem(last=False)

    def discard(self, key: str) -> None:
        self._seen.pop(key, None)
