#!/usr/bin/env bash
# Sets up, brings up the whole local stack on real services, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/selfimprint dev up
.venv/bin/selfimprint dev smoke
.venv/bin/selfimprint demo
echo "The stack stays up: open the URLs above; stop it with .venv/bin/selfimprint dev down"
