"""How long `selfimprint dev up` takes cold and warm, and how much memory the whole stack holds.

    .venv/bin/python scripts/bench_devup.py [--warm-runs 3] [--no-write]

Works on a fresh clone of this checkout's HEAD in a temporary folder, the way a new user starts:
1. `bash scripts/setup.sh` with an empty Maven repository (pip answers from its local cache;
   Maven downloads the Neo4j 5.26 engine from Central);
2. cold `dev up`: the launcher's build output and the Maven repository are emptied again, so the
   first `up` resolves and compiles the engine itself, and creates every database in a new
   data directory;
3. `dev smoke` and `demo` (the main job) on that stack;
4. `dev down`, then `--warm-runs` warm `dev up`s (data kept, Maven cached), each followed by
   `dev down`.
The whole stack's resident memory (every service process and its children) is sampled every
0.25 s throughout; the peak is reported with the phase it happened in. Ports are free ones, so a
running dev stack is left alone. Replaces `## Local stack start-up` in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.report import replace_section
from selfimprint.devstack.services import REPO_ROOT

SECTION = "## Local stack start-up"
SAMPLE_S = 0.25
MiB = 1024 * 1024


def say(text: str) -> None:
    sys.stderr.write(text + "\n")


@dataclass
class RssSampler:
    """Samples the stack's total RSS in a thread; remembers the peak per phase."""

    settings: Settings
    phase: str = "start"
    peaks: dict[str, int] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self._stop.is_set():
            rss = stack.stack_rss_bytes(self.settings)
            self.peaks[self.phase] = max(self.peaks.get(self.phase, 0), rss)
            self._stop.wait(SAMPLE_S)

    def stop(self) -> None:
        self._stop.set()


def timed(cmd: list[str], cwd: Path, env: dict[str, str], label: str) -> float:
    say(f"-- {label}: {' '.join(cmd)}")
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    seconds = time.perf_counter() - t0
    if result.returncode != 0:
        say(result.stdout[-3000:] + result.stderr[-3000:])
        raise SystemExit(f"{label} failed with exit code {result.returncode}")
    say(f"   {seconds:.1f} s")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="selfimprint-devup-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], check=True)  # noqa: S603, S607
    ports = isolated_port_settings()
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env["SELFIMPRINT_DATA_DIR"] = str(work / "data")
    env.update({f"SELFIMPRINT_{name.upper()}": str(port) for name, port in ports.items()})
    cli = [str(clone / ".venv/bin/selfimprint")]

    def fresh_maven(tag: str) -> None:
        repo = work / f"m2-{tag}"
        repo.mkdir()
        env["MAVEN_OPTS"] = f"-Dmaven.repo.local={repo}"

    settings = Settings(data_dir=work / "data", **ports)  # type: ignore[arg-type]
    sampler = RssSampler(settings)
    thread = threading.Thread(target=sampler.run, daemon=True)
    thread.start()
    figures: dict[str, float] = {}
    warm: list[float] = []
    try:
        fresh_maven("setup")
        setup = ["bash", "scripts/setup.sh"]
        figures["setup"] = timed(setup, clone, env, "setup (empty Maven repo)")
        shutil.rmtree(clone / "infra/neo4j-local/target")
        fresh_maven("cold")
        sampler.phase = "cold up"
        figures["cold"] = timed([*cli, "dev", "up"], clone, env, "dev up, cold")
        sampler.phase = "smoke + demo"
        figures["smoke"] = timed([*cli, "dev", "smoke"], clone, env, "dev smoke")
        figures["demo"] = timed([*cli, "demo"], clone, env, "demo")
        sampler.phase = "idle after demo"
        time.sleep(5)
        sampler.phase = "down"
        figures["down"] = timed([*cli, "dev", "down"], clone, env, "dev down")
        for run in range(args.warm_runs):
            sampler.phase = "warm up"
            warm.append(timed([*cli, "dev", "up"], clone, env, f"dev up, warm #{run + 1}"))
            sampler.phase = "down"
            timed([*cli, "dev", "down"], clone, env, "dev down")
    finally:
        sampler.stop()
        thread.join()
        subprocess.run([*cli, "dev", "down"], cwd=clone, env=env, capture_output=True, check=False)  # noqa: S603
    shutil.rmtree(work, ignore_errors=True)

    peak_phase, peak = max(sampler.peaks.items(), key=lambda kv: kv[1])
    lines = [
        SECTION,
        "",
        "Command: `.venv/bin/python scripts/bench_devup.py"
        + (f" --warm-runs {args.warm_runs}" if args.warm_runs != 3 else "")
        + "` (a fresh clone in a temporary folder, free ports).",
        "",
        "| step | seconds |",
        "|---|---|",
        "| `scripts/setup.sh` on the fresh clone, empty Maven repo (pip from its cache) "
        f"| {figures['setup']:.1f} |",
        f"| `dev up` cold: Maven resolve + launcher build, new data dir | {figures['cold']:.1f} |",
        f"| `dev smoke` | {figures['smoke']:.1f} |",
        f"| `demo` (the main job) | {figures['demo']:.1f} |",
        f"| `dev down` | {figures['down']:.1f} |",
        f"| `dev up` warm, data kept (median of {len(warm)}: "
        + ", ".join(f"{w:.1f}" for w in warm)
        + f") | {statistics.median(warm):.1f} |",
        "",
        "Whole-stack resident memory (every service process and its children, sampled every "
        f"{SAMPLE_S} s): **peak {peak / MiB:,.0f} MiB** during {peak_phase}; per phase: "
        + ", ".join(f"{phase} {rss / MiB:,.0f} MiB" for phase, rss in sampler.peaks.items() if rss)
        + ".",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    if not args.no_write:
        replace_section("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
