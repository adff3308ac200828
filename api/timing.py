"""`Server-Timing` response headers: where a latency-critical request spent its time, readable
in any HTTP client, browser dev tools and the benchmarks, without a tracing backend."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class ServerTiming:
    def __init__(self) -> None:
        self._parts: list[tuple[str, float]] = []

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self._parts.append((name, (time.perf_counter() - started) * 1000))

    def add(self, name: str, ms: float) -> None:
        """A part measured elsewhere (e.g. the read path's own timings)."""
        self._parts.append((name, ms))

    def header(self) -> str:
        return ", ".join(f"{name};dur={ms:.1f}" for name, ms in self._parts)

    @property
    def parts_ms(self) -> dict[str, float]:
        return dict(self._parts)
