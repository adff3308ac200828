#!/usr/bin/env bash
# Sets up and runs the whole test suite: unit, workflow (Temporal time-skipping test server)
# and integration/e2e tests against a real local stack that the tests start and stop themselves.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
set +e
.venv/bin/pytest "$@"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
  echo "test.sh: pytest collected no tests: the selection is wrong or the suite is broken" >&2
fi
exit $rc
