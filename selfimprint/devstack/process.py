"""Supervising one local service process: start detached, wait for readiness, stop exactly it.

Each service keeps `<data_dir>/run/<name>.pid` and `<data_dir>/logs/<name>.log`. A PID file is
trusted only while the process it names is still the one we started (same start time), so a
recycled PID is never signalled.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# How the services of the stack say that a port was taken: Go's and Python's "bind: address
# already in use", Neo4j's "Address 127.0.0.1:N is already in use, cannot bind to it",
# llama.cpp's "couldn't bind HTTP server socket".
PORT_CLASH_MARKERS = ("already in use", "couldn't bind", "could not bind")


def says_port_clash(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in PORT_CLASH_MARKERS)


class ServiceStartError(RuntimeError):
    """A service did not become ready; carries the tail of its log for the operator."""

    def __init__(self, name: str, reason: str, log_tail: str = "") -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason
        self.log_tail = log_tail

    @property
    def port_clash(self) -> bool:
        """Another process held one of the service's ports when it tried to bind it: a start
        on other ports can succeed (throw-away stacks pick their ports, then bind them later)."""
        return says_port_clash(self.reason) or says_port_clash(self.log_tail)


@dataclass(frozen=True)
class ProcessRecord:
    pid: int
    start_ticks: int
    command: list[str]

    def to_json(self) -> str:
        return json.dumps({"pid": self.pid, "start_ticks": self.start_ticks, "cmd": self.command})

    @staticmethod
    def from_json(text: str) -> ProcessRecord:
        raw = json.loads(text)
        return ProcessRecord(int(raw["pid"]), int(raw["start_ticks"]), list(raw["cmd"]))


def _start_ticks(pid: int) -> int | None:
    """Kernel start time of a PID (field 22 of /proc/<pid>/stat), None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name may contain spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] == "Z":  # a zombie is as good as gone
        return None
    return int(fields[19])


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def port_accepts(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def tail(path: Path, lines: int = 30) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16_384))
            data = handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


@dataclass
class ManagedProcess:
    name: str
    run_dir: Path
    log_dir: Path

    @property
    def pid_file(self) -> Path:
        return self.run_dir / f"{self.name}.pid"

    @property
    def log_file(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def record(self) -> ProcessRecord | None:
        try:
            rec = ProcessRecord.from_json(self.pid_file.read_text())
        except (OSError, ValueError, KeyError):
            return None
        if _start_ticks(rec.pid) != rec.start_ticks:
            return None
        return rec

    def running(self) -> bool:
        return self.record() is not None

    def start(
        self, command: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> ProcessRecord:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as log:
            log.write(f"\n=== {time.strftime('%Y-%m-%dT%H:%M:%S')} start {self.name}\n".encode())
            log.flush()
            proc = subprocess.Popen(  # noqa: S603 - fixed argv built by the stack
                list(command),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
                cwd=cwd,
                start_new_session=True,  # own process group: `down` stops its children too
            )
        ticks = _start_ticks(proc.pid)
        rec = ProcessRecord(proc.pid, ticks or 0, list(command))
        self.pid_file.write_text(rec.to_json())
        return rec

    def wait_ready(
        self, ready: Callable[[], bool], timeout_s: float, what: str = "readiness check"
    ) -> float:
        """Poll `ready` until it holds; fail early if the process dies. Returns seconds waited."""
        started = time.monotonic()
        delay = 0.05
        while True:
            if not self.running():
                raise ServiceStartError(self.name, "exited during start-up", tail(self.log_file))
            if says_port_clash(self.since_start()):
                # Some servers log the failed bind and keep running (llama.cpp's HTTP thread
                # dies, the process waits): waiting out the deadline would only cost minutes.
                self.stop()
                raise ServiceStartError(
                    self.name, "a port it needs is already in use", tail(self.log_file)
                )
            with contextlib.suppress(Exception):
                if ready():
                    return time.monotonic() - started
            if time.monotonic() - started > timeout_s:
                raise ServiceStartError(
                    self.name, f"{what} not passed within {timeout_s:.0f}s", tail(self.log_file)
                )
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def since_start(self) -> str:
        """What the service logged since its latest start (at most the last 16 KiB)."""
        lines = tail(self.log_file, lines=400).splitlines()
        banner = f" start {self.name}"  # the line `start` writes before launching it
        for index in range(len(lines) - 1, -1, -1):
            if lines[index].startswith("=== ") and lines[index].endswith(banner):
                return "\n".join(lines[index + 1 :])
        return "\n".join(lines)

    def stop(self, grace_s: float = 30.0) -> bool:
        """SIGTERM the process group, then SIGKILL after the grace period. True if it ran."""
        rec = self.record()
        if rec is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(rec.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and _start_ticks(rec.pid) == rec.start_ticks:
            time.sleep(0.1)
        if _start_ticks(rec.pid) == rec.start_ticks:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(rec.pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True

    def rss_bytes(self) -> int:
        """Resident memory of the process and all its descendants."""
        rec = self.record()
        if rec is None:
            return 0
        return sum(_rss(pid) for pid in _descendants(rec.pid))


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out
