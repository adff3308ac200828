"""Free loopback ports for a throw-away stack (tests, benchmarks) beside a running dev stack."""

from __future__ import annotations

import random

from selfimprint.devstack.process import port_in_use

# SeaweedFS also binds port + 10000 for gRPC. Both stay below Linux's ephemeral range (32768+
# by default), so an outgoing connection cannot take a chosen port between this check and the
# service's bind.
_LOW, _HIGH = 10_000, 22_700


def free_ports(count: int, host: str = "127.0.0.1", seed: int | None = None) -> list[int]:
    rng = random.Random(seed)
    chosen: list[int] = []
    while len(chosen) < count:
        port = rng.randrange(_LOW, _HIGH)
        near = {port, port + 10_000}
        if near & {q for c in chosen for q in (c, c + 10_000)}:
            continue
        if not any(port_in_use(host, p) for p in near):
            chosen.append(port)
    return chosen


def isolated_port_settings(host: str = "127.0.0.1") -> dict[str, int]:
    """Every port setting of the local stack, each on its own free port."""
    names = [
        "temporal_port", "temporal_ui_port", "temporal_http_port", "temporal_metrics_port",
        "neo4j_bolt_port", "s3_port", "s3_master_port", "s3_volume_port", "s3_filer_port",
        "llm_port", "api_port", "codec_port",
    ]  # fmt: skip
    ports = dict(zip(names, free_ports(len(names), host), strict=True))
    # The workers' metrics endpoints stay off: nothing scrapes a throw-away stack, and it must
    # not take 9464/9465 from a running dev stack.
    return ports | {"worker_metrics_port": 0, "worker_sdk_metrics_port": 0}
