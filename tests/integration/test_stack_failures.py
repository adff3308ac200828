"""A service that cannot start is reported with its log tail and nothing is left running."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.process import ServiceStartError, port_accepts

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
