"""`dev up`, `dev status`, `dev down` as plain functions, shared by the CLI and the test fixture
(so the integration tests start exactly what an operator starts)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from selfimprint.config import Settings
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.process import ManagedProcess, ServiceStartError, says_port_clash
from selfimprint.devstack.secrets import ensure_local_secrets
from selfimprint.devstack.services import Service, all_services, busy_ports
from selfimprint.logging import get_logger

log = get_logger(__name__)

# Started together and stopped together: none of them depends on another.
INFRASTRUCTURE = frozenset({"temporal", "codec", "neo4j", "s3", "llm"})


class PreflightError(RuntimeError):
    """Something the operator must fix before anything is started; nothing was started."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("cannot start the local stack:\n  - " + "\n  - ".join(problems))
        self.problems = problems

    @property
    def port_clash(self) -> bool:
        """Every problem is a port held by another process (nothing else to fix)."""
        return all(says_port_clash(p) for p in self.problems)


@dataclass
class ServiceReport:
    name: str
    state: str  # started | already running | running | stopped | not ready | external
    seconds: float = 0.0
    pid: int | None = None
    rss_bytes: int = 0
    urls: dict[str, str] = field(default_factory=dict)


def process_for(service: Service, settings: Settings) -> ManagedProcess:
    return ManagedProcess(service.name, settings.data_dir / "run", settings.data_dir / "logs")


def check_data_dir(settings: Settings) -> list[str]:
    root = settings.data_dir
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        return [
            f"data directory {root.resolve()} is not writable ({exc.strerror}): fix its "
            "permissions or set SELFIMPRINT_DATA_DIR"
        ]
    return []


def preflight(settings: Settings, services: list[Service]) -> list[str]:
    problems = check_data_dir(settings)
    for service in services:
        problems += service.preflight(settings)
        if process_for(service, settings).running():
            continue  # its ports are busy because it is ours and already up
        for port in busy_ports(service, settings):
            problems.append(
                f"{service.name}: port {settings.bind_host}:{port.number} is already in use "
                f"by another process: stop it or set {port.setting}"
            )
    return problems


def up(settings: Settings) -> list[ServiceReport]:
    """Start every enabled service that is not already running and wait until each is ready.

    If one fails, everything this call started is stopped again and ServiceStartError (with the
    tail of the failing service's log) is raised.
    """
    services = [s for s in all_services() if s.enabled(settings)]
    problems = preflight(settings, services)
    if problems:
        raise PreflightError(problems)
    ensure_local_secrets(settings)

    started: list[Service] = []
    reports: list[ServiceReport] = []
    try:
        # Infrastructure processes start together (they do not depend on each other) and are
        # then awaited one by one; our own processes need them, so they come after.
        infra = [s for s in services if s.name in INFRASTRUCTURE]
        rest = [s for s in services if s not in infra]
        t0 = time.monotonic()
        launched = _launch(settings, infra, started)
        for service in infra:
            reports.append(_await(settings, service, launched, t0))
        for service in rest:
            t0 = time.monotonic()
            launched = _launch(settings, [service], started)
            reports.append(_await(settings, service, launched, t0))
    except BaseException:
        for service in reversed(started):
            process_for(service, settings).stop()
        raise
    return reports


PORT_ATTEMPTS = 4


def up_on_free_ports(
    configure: Callable[[dict[str, int]], Settings], attempts: int = PORT_ATTEMPTS
) -> tuple[Settings, list[ServiceReport]]:
    """Start a throw-away stack (tests, benchmarks) on ports picked free just now.

    A picked port is free when picked but only bound later, by the service, so another process
    can take it in between (a busy CI machine does). Such a start fails with "already in use"
    (before anything starts, in `preflight`, or in the service's own log); it is then made again
    on fresh ports. `configure` gets the port settings and returns the stack's settings; it is
    called once per attempt, so it can give each attempt a fresh data directory. Any other
    failure, or the last attempt's, is raised as it is.
    """
    attempt = 1
    while True:
        settings = configure(isolated_port_settings())
        try:
            return settings, up(settings)
        except (PreflightError, ServiceStartError) as exc:
            if attempt >= attempts or not exc.port_clash:
                raise
            log.warning("stack.port_taken", attempt=attempt, error=str(exc), retry=True)
        attempt += 1


def _launch(settings: Settings, services: list[Service], started: list[Service]) -> set[str]:
    launched = set()
    for service in services:
        proc = process_for(service, settings)
        if service.name == "embedder" or proc.running():
            continue  # the embedder lives inside our processes; a running service is reused
        log.info("service.starting", service=service.name)
        started.append(service)
        service.start(settings, proc)
        launched.add(service.name)
    return launched


def _await(settings: Settings, service: Service, launched: set[str], t0: float) -> ServiceReport:
    proc = process_for(service, settings)
    if service.name == "embedder":
        try:
            service.ready(settings)
        except Exception as exc:
            raise ServiceStartError("embedder", f"failed to load: {exc}") from exc
        state = "loaded"
    else:
        proc.wait_ready(lambda: service.ready(settings), settings.start_timeout_s)
        state = "started" if service.name in launched else "already running"
    seconds = time.monotonic() - t0
    rec = proc.record()
    log.info("service.ready", service=service.name, state=state, seconds=round(seconds, 2))
    return ServiceReport(
        service.name,
        state,
        seconds,
        rec.pid if rec else None,
        proc.rss_bytes(),
        service.urls(settings),
    )


def status(settings: Settings) -> list[ServiceReport]:
    reports = []
    for service in all_services():
        if not service.enabled(settings):
            reports.append(ServiceReport(service.name, "external", urls=service.urls(settings)))
            continue
        proc = process_for(service, settings)
        rec = proc.record()
        if service.name == "embedder":
            reports.append(ServiceReport(service.name, "in-process", urls=service.urls(settings)))
            continue
        if rec is None:
            reports.append(ServiceReport(service.name, "stopped"))
            continue
        try:
            ok = service.ready(settings)
        except Exception:
            ok = False
        reports.append(
            ServiceReport(
                service.name,
                "running" if ok else "not ready",
                pid=rec.pid,
                rss_bytes=proc.rss_bytes(),
                urls=service.urls(settings),
            )
        )
    return reports


PORT_RELEASE_S = 15.0


def down(settings: Settings) -> list[str]:
    """Stop exactly what `up` started (by PID file): our processes first, one by one in reverse
    start order, then the infrastructure services together (they do not depend on each other,
    and SeaweedFS alone spends 15 s in its filer's graceful stop). Returns once their ports are
    free again: a process can outlive its PID-file check by a moment (a child still closing its
    listener), and an `up` right after would find the port taken."""
    services = list(reversed(all_services()))
    ours = [s for s in services if s.name not in INFRASTRUCTURE]
    infra = [s for s in services if s.name in INFRASTRUCTURE]
    stopped = [s.name for s in ours if _stop(s, settings)]
    with ThreadPoolExecutor(max_workers=len(infra)) as pool:
        results = list(pool.map(lambda s: _stop(s, settings), infra))
    return stopped + [s.name for s, ran in zip(infra, results, strict=True) if ran]


def stop(settings: Settings, name: str) -> bool:
    """Stop one running service by name (an outage drill: `dev up` starts it again).
    False when it was not running."""
    service = next((s for s in all_services() if s.name == name), None)
    if service is None:
        raise ValueError(f"no service named {name!r}")
    return _stop(service, settings)


def _stop(service: Service, settings: Settings) -> bool:
    if not process_for(service, settings).stop():
        return False
    _await_ports_released(service, settings)
    return True


def _await_ports_released(service: Service, settings: Settings) -> None:
    deadline = time.monotonic() + PORT_RELEASE_S
    while busy := busy_ports(service, settings):
        if time.monotonic() > deadline:
            log.warning(
                "service.ports_still_busy", service=service.name, ports=[p.number for p in busy]
            )
            return
        time.sleep(0.2)


def log_path(settings: Settings, name: str) -> Path:
    return settings.data_dir / "logs" / f"{name}.log"


def stack_rss_bytes(settings: Settings) -> int:
    return sum(process_for(s, settings).rss_bytes() for s in all_services())
