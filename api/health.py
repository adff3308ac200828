"""Readiness of each dependency, checked for real and with a short timeout each."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings


class Check(BaseModel):
    name: str
    ok: bool
    ms: float
    error: str | None = None


async def _timed(name: str, probe: Callable[[], Awaitable[object]], timeout_s: float) -> Check:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(probe(), timeout_s)
        return Check(name=name, ok=True, ms=(time.perf_counter() - started) * 1000)
    except Exception as exc:  # readiness reports every failure as data, never raises
        return Check(
            name=name,
            ok=False,
            ms=(time.perf_counter() - started) * 1000,
            error=f"{type(exc).__name__}: {exc}"[:300],
        )


async def check_all(settings: Settings, timeout_s: float = 3.0) -> list[Check]:
    async def temporal() -> None:
        client = await connect(settings)
        await client.service_client.check_health()

    async def neo4j() -> None:
        import neo4j as driver_lib

        async with driver_lib.AsyncGraphDatabase.driver(
            settings.neo4j_target, auth=settings.neo4j_auth()
        ) as driver:
            await driver.execute_query("RETURN 1", database_=settings.neo4j_database)

    async def s3() -> None:
        import boto3

        keys: dict[str, str] = {}
        if not settings.s3_default_credentials:  # else boto3's chain (IAM role, IRSA, AWS_*)
            key_id, secret = settings.s3_credentials()
            keys = {"aws_access_key_id": key_id, "aws_secret_access_key": secret}
        client = boto3.client(
            "s3", endpoint_url=settings.s3_target, region_name=settings.s3_region, **keys
        )
        await asyncio.to_thread(client.head_bucket, Bucket=settings.s3_bucket)

    async def llm() -> None:
        if not await build_llm(settings).healthy():
            raise RuntimeError(f"{settings.llm_target}/models did not answer 200")

    async def embedder() -> None:
        await asyncio.to_thread(build_embedder(settings).embed_queries, ["ready?"])

    probes: dict[str, Callable[[], Awaitable[object]]] = {
        "temporal": temporal,
        "neo4j": neo4j,
        "s3": s3,
        "llm": llm,
        "embedder": embedder,
    }
    return list(await asyncio.gather(*(_timed(name, p, timeout_s) for name, p in probes.items())))
