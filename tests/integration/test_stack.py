"""The local stack really works: each part is exercised the way the product will use it."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import timedelta

import boto3
import httpx
import neo4j
import numpy as np
import pytest
from botocore.exceptions import ClientError
from pydantic import BaseModel, Field

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.devstack import stack
from workflows.probe import StackProbeInput, StackProbeWorkflow

pytestmark = pytest.mark.integration


def stored_payloads(node: object) -> list[tuple[str, bytes]]:
    """(encoding, data) of every payload in a history's JSON form (both are base64 there)."""
    found: list[tuple[str, bytes]] = []
    if isinstance(node, dict):
        metadata = node.get("metadata")
        if isinstance(metadata, dict) and "encoding" in metadata and "data" in node:
            encoding = base64.b64decode(metadata["encoding"]).decode()
            found.append((encoding, base64.b64decode(node["data"])))
        for value in node.values():
            found += stored_payloads(value)
    elif isinstance(node, list):
        for value in node:
            found += stored_payloads(value)
    return found


async def test_temporal_runs_a_workflow_across_both_workers(stack_settings: Settings) -> None:
    client = await connect(stack_settings)
    secret = f"my interview is at Northwind on Friday {uuid.uuid4()}"
    workflow_id = f"test-probe-{uuid.uuid4()}"
    out = await client.execute_workflow(
        StackProbeWorkflow.run,
        StackProbeInput(text=secret, gpu_task_queue=stack_settings.task_queue_gpu),
        id=workflow_id,
        task_queue=stack_settings.task_queue_cpu,
        execution_timeout=timedelta(seconds=60),
    )
    assert out.dimension == 384
    assert "e5" in out.model_id
    # What the Temporal server stored: ciphertext only, for the workflow input and the
    # activity input alike (both workers encrypt and decrypt with the same keys).
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    payloads = stored_payloads(json.loads(history.to_json()))
    assert len(payloads) >= 3  # workflow input, activity input, activity result, ...
    assert {encoding for encoding, _ in payloads} == {"binary/selfimprint-aes256gcm"}
    assert not any(b"Northwind" in data for _, data in payloads)


def test_neo4j_answers_cypher_and_a_vector_index_query(stack_settings: Settings) -> None:
    label = f"Probe{uuid.uuid4().hex[:8]}"
    index = f"probe_{uuid.uuid4().hex[:8]}"
    with neo4j.GraphDatabase.driver(
        stack_settings.neo4j_target, auth=stack_settings.neo4j_auth()
    ) as driver:
        records, _, _ = driver.execute_query("RETURN 40 + 2 AS answer")
        assert records[0]["answer"] == 42
        driver.execute_query(
            f"CREATE VECTOR INDEX {index} FOR (n:{label}) ON n.embedding OPTIONS "
            "{indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}"
        )
        driver.execute_query("CALL db.awaitIndexes(60)")
        driver.execute_query(
            f"UNWIND $rows AS row CREATE (:{label} {{name: row.name, embedding: row.v}})",
            rows=[
                {"name": "east", "v": [1.0, 0.0, 0.0]},
                {"name": "north", "v": [0.0, 1.0, 0.0]},
                {"name": "up", "v": [0.0, 0.0, 1.0]},
            ],
        )
        # The vector index is eventually consistent; poll the query until it sees the nodes.
        for _ in range(100):
            records, _, _ = driver.execute_query(
                f"CALL db.index.vector.queryNodes('{index}', 2, $q) YIELD node, score "
                "RETURN node.name AS name, score ORDER BY score DESC",
                q=[0.9, 0.1, 0.0],
            )
            if len(records) == 2:
                break
        assert [r["name"] for r in records] == ["east", "north"]
        assert records[0]["score"] > records[1]["score"]
        driver.execute_query(f"DROP INDEX {index}")
        driver.execute_query(f"MATCH (n:{label}) DELETE n")


def test_neo4j_rejects_a_wrong_password(stack_settings: Settings) -> None:
    with (
        neo4j.GraphDatabase.driver(stack_settings.neo4j_target, auth=("neo4j", "wrong")) as d,
        pytest.raises(neo4j.exceptions.AuthError),
    ):
        d.verify_connectivity()


def _s3(settings: Settings, secret: str | None = None) -> object:
    key_id, real_secret = settings.s3_credentials()
    return boto3.client(
        "s3",
        endpoint_url=settings.s3_target,
        region_name=settings.s3_region,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret or real_secret,
    )


def test_s3_put_get_and_wrong_credentials_are_rejected(stack_settings: Settings) -> None:
    key = f"probe/{uuid.uuid4()}.bin"
    body = uuid.uuid4().bytes * 100
    good = _s3(stack_settings)
    good.put_object(Bucket=stack_settings.s3_bucket, Key=key, Body=body)  # type: ignore[attr-defined]
    got = good.get_object(Bucket=stack_settings.s3_bucket, Key=key)  # type: ignore[attr-defined]
    assert got["Body"].read() == body

    bad = _s3(stack_settings, secret="not-the-secret")
    with pytest.raises(ClientError) as err:
        bad.get_object(Bucket=stack_settings.s3_bucket, Key=key)  # type: ignore[attr-defined]
    assert err.value.response["Error"]["Code"] in {"SignatureDoesNotMatch", "AccessDenied"}
    with pytest.raises(ClientError):
        bad.put_object(Bucket=stack_settings.s3_bucket, Key=key + "x", Body=b"x")  # type: ignore[attr-defined]


class CityAnswer(BaseModel):
    city: str = Field(max_length=40)
    population_millions: float = Field(ge=0, le=100)
    is_capital: bool


async def test_llm_answers_json_that_validates_against_the_schema(
    stack_settings: Settings,
) -> None:
    llm = build_llm(stack_settings)
    assert await llm.unhealthy_reason() is None
    answer = await llm.complete_json(
        [
            {"role": "system", "content": "Answer with JSON only."},
            {"role": "user", "content": "Tell me about Paris: city, population, capital?"},
        ],
        CityAnswer,
        max_tokens=80,
    )
    assert isinstance(answer, CityAnswer)
    assert answer.city


def test_embedder_is_384_dim_and_multilingual(stack_settings: Settings) -> None:
    embedder = build_embedder(stack_settings)
    english, russian, unrelated = embedder.embed_passages(
        [
            "I am worried about my job interview next week.",
            "Я волнуюсь из-за собеседования на работу на следующей неделе.",
            "The soup needs more salt and a bay leaf.",
        ]
    )
    assert embedder.dimension == 384
    assert len(english) == len(russian) == len(unrelated) == 384
    same = float(np.dot(english, russian))
    other = float(np.dot(english, unrelated))
    assert same > other + 0.05, (same, other)


def test_api_is_ready_and_every_dependency_is_checked(stack_settings: Settings) -> None:
    answer = httpx.get(f"{stack_settings.api_url}/readyz", timeout=30)
    assert answer.status_code == 200, answer.text
    checks = {c["name"]: c["ok"] for c in answer.json()["checks"]}
    assert checks == {"temporal": True, "neo4j": True, "s3": True, "embedder": True}
    assert answer.json()["degraded"] == []  # the LLM is watched apart (tests/e2e/..._llm_down)
    assert httpx.get(f"{stack_settings.api_url}/healthz/llm", timeout=30).status_code == 200
    assert httpx.get(f"{stack_settings.api_url}/openapi.json").status_code == 200


def test_status_reports_every_service_running(stack_settings: Settings) -> None:
    states = {r.name: r.state for r in stack.status(stack_settings)}
    assert states.pop("embedder") == "in-process"
    assert set(states.values()) == {"running"}, states


def test_restart_keeps_all_data(stack_settings: Settings) -> None:
    marker = str(uuid.uuid4())
    with neo4j.GraphDatabase.driver(
        stack_settings.neo4j_target, auth=stack_settings.neo4j_auth()
    ) as driver:
        driver.execute_query("CREATE (:RestartProbe {marker: $m})", m=marker)
    _s3(stack_settings).put_object(  # type: ignore[attr-defined]
        Bucket=stack_settings.s3_bucket, Key=f"restart/{marker}", Body=marker.encode()
    )

    assert "neo4j" in stack.down(stack_settings)
    assert all(r.state in {"stopped", "in-process"} for r in stack.status(stack_settings))
    reports = stack.up(stack_settings)
    assert {r.state for r in reports if r.name != "embedder"} == {"started"}

    with neo4j.GraphDatabase.driver(
        stack_settings.neo4j_target, auth=stack_settings.neo4j_auth()
    ) as driver:
        records, _, _ = driver.execute_query(
            "MATCH (n:RestartProbe {marker: $m}) RETURN count(n) AS c", m=marker
        )
        assert records[0]["c"] == 1
    got = _s3(stack_settings).get_object(  # type: ignore[attr-defined]
        Bucket=stack_settings.s3_bucket, Key=f"restart/{marker}"
    )
    assert got["Body"].read() == marker.encode()
    # The launcher leaves the password alone when it is already set (issue 35): no refusal
    # in Neo4j's logs or in the launcher's own.
    logs = [
        stack.log_path(stack_settings, "neo4j"),
        *(stack_settings.data_dir / "neo4j").rglob("*.log"),
    ]
    refused = [p for p in logs if "cannot be the same" in p.read_text(errors="replace")]
    assert refused == []
