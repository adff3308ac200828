"""Benchmarks write their figures into one section of BENCHMARKS.md each, leaving the others."""

from __future__ import annotations

from pathlib import Path

from selfimprint.devstack.services import REPO_ROOT

BENCHMARKS = REPO_ROOT / "BENCHMARKS.md"


def replace_section(section: str, path: Path = BENCHMARKS) -> None:
    """Replace the section whose first line (`## Title`) matches `section`'s, or append it."""
    heading = section.splitlines()[0]
    text = path.read_text() if path.exists() else "# Benchmarks\n\n"
    start = text.find(heading + "\n")
    body = section.rstrip("\n") + "\n"
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + body + (text[end:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    path.write_text(text)
