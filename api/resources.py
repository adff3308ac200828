"""The process-wide clients the API shares: one Neo4j driver, one Temporal client (connected
lazily, so the read path keeps serving while Temporal is down), the embedder and the LLM."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from neo4j import AsyncDriver
from temporalio.client import Client

from api.errors import ORCHESTRATOR_DOWN, ApiError
from selfimprint.adapters.crypto import FileDataKeyStore, load_kek
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.graph_archive import GraphArchive, build_archive
from selfimprint.adapters.llm import OpenAICompatibleLLM, build_llm
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.collective import Neo4jCollective
from selfimprint.adapters.neo4j.message_log import Neo4jMessageLog
from selfimprint.adapters.s3 import S3ObjectStore
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.ports import Embedder

CONNECT_BACKOFF_S = 2.0


def wall_clock() -> datetime:
    return datetime.now(UTC)


@dataclass
class Resources:
    settings: Settings
    driver: AsyncDriver
    graph: Neo4jGraphStore
    accounts: Neo4jAccounts
    embedder: Embedder
    llm: OpenAICompatibleLLM
    # CollectiveImprint's pseudonym key (Settings.collective_secret): resolved by `open`, so an
    # API without one fails at start-up, not on the first context feedback.
    collective_key: bytes
    # What "now" is for decay, recency and expiry on the read path; scenario tests drive it
    # with the time-skipping Temporal server's clock.
    clock: Callable[[], datetime] = wall_clock
    # The domain's numbers the read path applies (scoring, context): Settings.tuning_file.
    tuning: DomainTuning = field(default_factory=DomainTuning)
    _temporal: Client | None = None
    _archive: GraphArchive | None = None
    _objects: S3ObjectStore | None = None
    _collective: Neo4jCollective | None = None
    _temporal_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _temporal_failed_at: float = float("-inf")

    @staticmethod
    def open(settings: Settings) -> Resources:
        collective_key = settings.collective_secret()  # first: fail before opening anything
        tuning = settings.domain_tuning()
        driver = open_driver(settings)
        return Resources(
            settings=settings,
            driver=driver,
            graph=Neo4jGraphStore(driver, settings.neo4j_database, deletions=tuning.deletions),
            accounts=Neo4jAccounts(driver, settings.neo4j_database),
            embedder=build_embedder(settings),
            llm=build_llm(settings),
            collective_key=collective_key,
            tuning=tuning,
        )

    def objects(self) -> S3ObjectStore:
        """The process's one S3 client, built on first use (the archive and readiness share it)."""
        if self._objects is None:
            self._objects = S3ObjectStore.from_settings(self.settings)
        return self._objects

    def archive(self) -> GraphArchive:
        """Warm/cold storage (S3 + the user data keys), built on first use: export and the
        context of archived users need it, and start-up should not wait for boto3."""
        if self._archive is None:
            keys = FileDataKeyStore(self.settings.data_dir, load_kek(self.settings, os.environ))
            self._archive = build_archive(
                self.settings, dict(os.environ), objects=self.objects(), keys=keys
            )
        return self._archive

    def messages(self, scope: UserScope) -> Neo4jMessageLog:
        return Neo4jMessageLog(self.driver, self.settings.neo4j_database, scope)

    def collective(self) -> Neo4jCollective:
        """CollectiveImprint's patterns (per tenant, no user data: service.collective); one per
        process, for its cache of active-user counts."""
        if self._collective is None:
            self._collective = Neo4jCollective(self.driver, self.settings.neo4j_database)
        return self._collective

    async def temporal(self) -> Client:
        """The shared client. While Temporal is unreachable, a failed connect is remembered
        for a moment: requests and the notifier's retries fail at once instead of queueing
        behind one another's connect attempts."""
        async with self._temporal_lock:
            if self._temporal is None:
                if time.monotonic() - self._temporal_failed_at < CONNECT_BACKOFF_S:
                    raise ApiError(503, *ORCHESTRATOR_DOWN)
                try:
                    self._temporal = await connect(self.settings)
                except RuntimeError as exc:  # the SDK's "Failed client connect"
                    self._temporal_failed_at = time.monotonic()
                    raise ApiError(503, *ORCHESTRATOR_DOWN) from exc
            return self._temporal

    async def close(self) -> None:
        await self.driver.close()
