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
.venv/bin/lint-imports  # the layers of docs/architecture.md (.importlinter)
# Deployment artefacts: the Dockerfile (hadolint, the wheel's data files), the Helm chart (helm
# lint/template, kubeconform), the Prometheus rules (promtool tests). Each installs its pinned
# tool into .tools/ on first use.
bash scripts/check_dockerfile.sh
bash scripts/check_helm.sh
bash scripts/check_alerts.sh
set +e
.venv/bin/pytest "$@"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
  echo "test.sh: pytest collected no tests: the selection is wrong or the suite is broken" >&2
fi
exit $rc
