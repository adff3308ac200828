"""A service that cannot start is reported with its log tail and nothing is left running; a
throw-away stack that loses a port race starts again on fresh ports."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.process import ServiceStartError, port_accepts
from tests.deadlines import READY_S

pytestmark = pytest.mark.integration


def test_a_failing_service_stops_the_others(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file")
    settings = Settings(
        data_dir=tmp_path / "data",
        llm_gguf_path=broken,
        # Only Temporal and the LLM server start locally; the rest points elsewhere.
        neo4j_uri="bolt://127.0.0.1:1",
        s3_endpoint_url="http://127.0.0.1:1",
        run_api=False,
        run_workers=False,
        start_timeout_s=60,
        **isolated_port_settings(),  # type: ignore[arg-type]
    )
    with pytest.raises(ServiceStartError) as err:
        stack.up(settings)
    assert err.value.name == "llm"
    assert err.value.log_tail  # the operator sees why
    assert not port_accepts(settings.bind_host, settings.temporal_port)
    assert not any((settings.data_dir / "run").glob("*.pid"))


def _temporal_only(data_dir: Path, ports: dict[str, int]) -> Settings:
    """Only Temporal (and the codec server beside it) start locally; the rest points elsewhere."""
    return Settings(
        data_dir=data_dir,
        neo4j_uri="bolt://127.0.0.1:1",
        s3_endpoint_url="http://127.0.0.1:1",
        llm_base_url="http://127.0.0.1:1/v1",
        run_api=False,
        run_workers=False,
        start_timeout_s=READY_S,
        **ports,  # type: ignore[arg-type]
    )


@pytest.fixture
def taken_after_the_check(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A port that another process takes between the stack's pick and Temporal's bind: the
    first pick gives it to the Temporal UI, and the pre-flight check does not see it (as if it
    was taken a moment after the check)."""
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken: int = blocker.getsockname()[1]
        picks = 0

        def pick() -> dict[str, int]:
            nonlocal picks
            picks += 1
            ports = isolated_port_settings()
            return ports | {"temporal_ui_port": taken} if picks == 1 else ports

        monkeypatch.setattr(stack, "isolated_port_settings", pick)
        monkeypatch.setattr(stack, "preflight", lambda settings, services: [])
        yield taken


def test_a_port_taken_before_the_bind_is_retried_on_fresh_ports(
    tmp_path: Path, taken_after_the_check: int
) -> None:
    tried: list[Settings] = []

    def configure(ports: dict[str, int]) -> Settings:
        tried.append(_temporal_only(tmp_path / f"data-{len(tried)}", ports))
        return tried[-1]

    settings, reports = stack.up_on_free_ports(configure)
    try:
        assert len(tried) == 2
        assert tried[0].temporal_ui_port == taken_after_the_check
        assert settings is tried[1] and settings.temporal_ui_port != taken_after_the_check
        assert {r.name: r.state for r in reports}["temporal"] == "started"
        assert port_accepts(settings.bind_host, settings.temporal_port)
        assert "already in use" in stack.log_path(tried[0], "temporal").read_text()
        assert not any((tried[0].data_dir / "run").glob("*.pid"))  # the failed try is stopped
    finally:
        stack.down(settings)


def test_a_lost_port_race_on_the_last_attempt_names_the_service_and_its_log(
    tmp_path: Path, taken_after_the_check: int
) -> None:
    with pytest.raises(ServiceStartError) as err:
        stack.up_on_free_ports(lambda ports: _temporal_only(tmp_path / "data", ports), attempts=1)
    assert err.value.name == "temporal"
    assert err.value.port_clash
    assert str(taken_after_the_check) in err.value.log_tail
    assert "already in use" in err.value.log_tail
    assert not any((tmp_path / "data" / "run").glob("*.pid"))
