"""The TypeScript client (clients/typescript, issue 36) against the test stack: its own
`node --test` suite, built from the sources, and its types current with the schema."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from selfimprint.config import Settings

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        shutil.which("node") is None or shutil.which("npm") is None,
        reason="Node.js is not installed: the TypeScript client is not tested here",
    ),
]

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"


def _npm(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["npm", *args],  # noqa: S607 - npm from PATH, as a developer runs it
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, (
        f"npm {' '.join(args)}:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def built() -> None:
    if not (CLIENT / "node_modules").is_dir():
        _npm("ci", "--no-audit", "--no-fund")
    _npm("run", "build")


def test_the_types_are_generated_from_the_current_schema(built: None, tmp_path: Path) -> None:
    fresh = tmp_path / "schema.ts"
    _npm(
        "exec",
        "--",
        "openapi-typescript",
        "openapi.json",
        "--default-non-nullable",
        "false",
        "-o",
        str(fresh),
    )
    assert fresh.read_text() == (CLIENT / "src" / "schema.ts").read_text(), (
        "run `npm run generate` in clients/typescript"
    )


def test_the_client_works_against_the_stack(
    built: None, stack_settings: Settings, tenant_key: str
) -> None:
    env = {
        **os.environ,
        "SELFIMPRINT_API_URL": stack_settings.api_url,
        "SELFIMPRINT_API_KEY": tenant_key,
    }
    out = _npm("test", env=env)
    assert "# fail 0" in out and "# pass 2" in out, out[-2000:]
