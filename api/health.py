"""The API's probes, each answered from clients the process already holds.

- `/healthz` (liveness): the process serves requests.
- `/readyz` (readiness, the chart's start-up probe): what the API itself needs to serve answers:
  Neo4j, Temporal, S3 (contexts of warm and cold users are read from the archive) and the
  embedder, loaded and warmed once at start-up. The LLM is not among them: ingestion
  (structured) and the fast context need none, and prose context falls back without it, so an
  LLM outage must never take the API out of rotation.
- `/healthz/llm`: the model server's health, probed in the background (`LlmWatch`), also the
  `selfimprint_llm_up` gauge and the `LlmDown` alert; `/readyz` lists it under `degraded`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from prometheus_client import Gauge
from pydantic import BaseModel

from selfimprint.logging import get_logger
from selfimprint.ports import LLM

log = get_logger(__name__)

LLM_UP = Gauge(
    "selfimprint_llm_up",
    "1 when the model server answered the API's last health probe, 0 when it did not",
)


class Check(BaseModel):
    name: str
    ok: bool
    ms: float
    error: str | None = None


async def timed(name: str, probe: Callable[[], Awaitable[object]], timeout_s: float) -> Check:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(probe(), timeout_s)
        return Check(name=name, ok=True, ms=round((time.perf_counter() - started) * 1000, 1))
    except Exception as exc:  # probes report every failure as data, never raise
        reason = str(exc) or type(exc).__name__
        return Check(
            name=name,
            ok=False,
            ms=round((time.perf_counter() - started) * 1000, 1),
            error=reason[:300],
        )


async def readiness(
    probes: dict[str, Callable[[], Awaitable[object]]], timeout_s: float
) -> list[Check]:
    """Every probe at once, each within `timeout_s`."""
    return list(await asyncio.gather(*(timed(n, p, timeout_s) for n, p in probes.items())))


class LlmWatch:
    """Probes the model server every `interval_s` and keeps the last answer, so `/readyz` and
    `/healthz/llm` never wait on a server that is down and the gauge moves without traffic."""

    def __init__(self, llm: LLM, interval_s: float, timeout_s: float = 2.0) -> None:
        self._llm = llm
        self._interval_s = interval_s
        self._timeout_s = timeout_s
        self._task: asyncio.Task[None] | None = None
        self.last: Check | None = None

    async def probe(self) -> Check:
        async def ask() -> None:
            reason = await self._llm.unhealthy_reason()
            if reason is not None:
                raise RuntimeError(reason)

        check = await timed("llm", ask, self._timeout_s)
        if self.last is not None and self.last.ok != check.ok:
            log.warning("llm.health_changed", ok=check.ok, error=check.error)
        self.last = check
        LLM_UP.set(1 if check.ok else 0)
        return check

    async def current(self) -> Check:
        return self.last if self.last is not None else await self.probe()

    def start(self) -> None:
        async def loop() -> None:
            while True:
                await self.probe()
                await asyncio.sleep(self._interval_s)

        self._task = asyncio.create_task(loop(), name="llm-watch")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
