"""Bad local set-ups get one clear message naming the cause and the setting to change."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.services import all_services

pytestmark = pytest.mark.unit


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", **isolated_port_settings())  # type: ignore[arg-type]


@pytest.fixture
def occupied(settings: Settings) -> Iterator[Settings]:
    """Settings whose Neo4j port another process listens on.

    The kernel picks the port (bind to 0): a port chosen as free and bound later can be taken
    meanwhile, or sit in TIME_WAIT, by the stack or the suite running beside this test.
    """
    with socket.socket() as sock:
        sock.bind((settings.bind_host, 0))
        sock.listen()
        yield settings.model_copy(update={"neo4j_bolt_port": sock.getsockname()[1]})


def test_an_occupied_port_names_the_setting(occupied: Settings) -> None:
    settings, port = occupied, occupied.neo4j_bolt_port
    problems = stack.preflight(settings, all_services())
    assert problems == [
        f"neo4j: port 127.0.0.1:{port} is already in use by another process: "
        "stop it or set SELFIMPRINT_NEO4J_BOLT_PORT"
    ]
    with pytest.raises(stack.PreflightError) as err:
        stack.up(settings)
    assert err.value.port_clash  # a throw-away stack picks other ports and starts again
    assert not (settings.data_dir / "run").exists()  # nothing was started


def test_missing_java_is_named(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    problems = stack.preflight(settings, all_services())
    assert any("Java 17+" in p and "SELFIMPRINT_NEO4J_URI" in p for p in problems), problems


def test_an_unwritable_data_dir_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    settings = Settings(data_dir=blocker / "data", **isolated_port_settings())  # type: ignore[arg-type]
    problems = stack.preflight(settings, all_services())
    assert len(problems) == 1
    assert "is not writable" in problems[0] and "SELFIMPRINT_DATA_DIR" in problems[0]
    assert not stack.PreflightError(problems).port_clash  # other ports would not help


def test_a_wrong_gguf_path_is_named(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        llm_gguf_path=tmp_path / "missing.gguf",
        **isolated_port_settings(),  # type: ignore[arg-type]
    )
    problems = stack.preflight(settings, all_services())
    assert problems == [
        f"GGUF model {tmp_path / 'missing.gguf'} does not exist: fix SELFIMPRINT_LLM_GGUF_PATH"
    ]


def test_external_services_are_not_started(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        temporal_address="temporal.example:7233",
        neo4j_uri="neo4j+s://graph.example",
        s3_endpoint_url="https://s3.example",
        llm_base_url="https://vllm.example/v1",
    )
    enabled = {s.name for s in all_services() if s.enabled(settings)}
    assert enabled == {"embedder", "worker-cpu", "worker-gpu", "api"}
    assert settings.llm_target == "https://vllm.example/v1"
