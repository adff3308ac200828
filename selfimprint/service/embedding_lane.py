"""Embeddings computed off the event loop, a bounded number at once.

The model runs on the CPU the event loop needs too. With `asyncio.to_thread` every waiting
request got a thread of the default pool, so a few long context requests could take every core
and `/healthz` stopped answering. A lane of `threads` workers (`Settings.api_embed_threads`) caps
that; later requests queue for a turn instead of competing for the cores.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

_LANES: dict[int, ThreadPoolExecutor] = {}

Embed = Callable[[Sequence[str]], list[list[float]]]


def _lane(threads: int) -> ThreadPoolExecutor:
    if threads not in _LANES:
        _LANES[threads] = ThreadPoolExecutor(threads, thread_name_prefix=f"embed-{threads}")
    return _LANES[threads]


async def embed_off_loop(embed: Embed, texts: Sequence[str], threads: int) -> list[list[float]]:
    """`embed(texts)` in the process's lane of `threads` workers."""
    return await asyncio.get_running_loop().run_in_executor(_lane(threads), embed, list(texts))
