"""The codec server: the Temporal remote-codec protocol over the real payload codec, its token,
CORS for the UI origin only, 400 on malformed input, and user text redacted unless asked."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import WorkflowSerializationContext

from selfimprint.adapters.crypto import InMemoryDataKeyStore, LocalKek
from selfimprint.adapters.payload_codec import ENCODING, DataKeyPayloadKeys, EncryptingCodec
from selfimprint.codec_server import app_from_settings, create_app, payloads_json, ui_origins
from selfimprint.config import Settings
from selfimprint.devstack.secrets import ensure_local_secrets

pytestmark = pytest.mark.unit

KEY = os.urandom(32)
TOKEN = "test-token"
UI = "http://127.0.0.1:8233"
AUTH = {"Authorization": f"Bearer {TOKEN}", "X-Namespace": "default"}
TEXT = "I am nervous about the interview on Friday"
MESSAGE: dict[str, Any] = {"user_id": "u1", "text": TEXT, "seq": 3}
MEMORY = {"memories": [{"id": "m1", "content": "Has a dog named Rex", "weight": 0.5}]}
# The sleep phase's hypothesis context: memory contents as a plain list of strings.
SLEEP = {"memory_ids": ["m1", "m2"], "memories": ["Has a dog named Rex", "Hates Mondays"]}


def app(**kwargs: Any) -> Starlette:
    return create_app(EncryptingCodec([KEY]), token=TOKEN, ui_origins=[UI], **kwargs)


async def client_for(application: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=application)
    async with httpx.AsyncClient(transport=transport, base_url="http://codec") as client:
        yield client


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async for c in client_for(app()):
        yield c


@pytest.fixture
async def showing() -> AsyncIterator[httpx.AsyncClient]:
    async for c in client_for(app(show_user_text=True)):
        yield c


def plain(*values: object) -> dict[str, Any]:
    return payloads_json(pydantic_data_converter.payload_converter.to_payloads(values))


def values(body: dict[str, Any]) -> list[Any]:
    return [json.loads(base64.b64decode(p["data"])) for p in body["payloads"]]


async def encode(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    answer = await client.post("/encode", json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


async def test_round_trip_through_http(
    client: httpx.AsyncClient, showing: httpx.AsyncClient
) -> None:
    sealed = await encode(client, plain(MESSAGE, MEMORY))
    assert [base64.b64decode(p["metadata"]["encoding"]) for p in sealed["payloads"]] == [
        ENCODING,
        ENCODING,
    ]
    assert "nervous" not in json.dumps(sealed)
    answer = await showing.post("/decode", json=sealed, headers=AUTH)
    assert answer.status_code == 200
    assert values(answer.json()) == [MESSAGE, MEMORY]
    assert answer.json() == plain(MESSAGE, MEMORY)  # metadata too, byte for byte


async def test_user_text_is_redacted_by_default(client: httpx.AsyncClient) -> None:
    sealed = await encode(client, plain(MESSAGE, MEMORY, SLEEP, "plain string"))
    answer = await client.post("/decode", json=sealed, headers=AUTH)
    assert answer.status_code == 200
    message, memory, sleep, other = values(answer.json())
    assert message == {**MESSAGE, "text": f"[redacted {len(TEXT)} chars]"}
    assert memory["memories"][0] == {"id": "m1", "content": "[redacted 19 chars]", "weight": 0.5}
    assert sleep == {
        "memory_ids": ["m1", "m2"],
        "memories": ["[redacted 19 chars]", "[redacted 13 chars]"],
    }
    assert other == "plain string"  # not a user-text field
    assert "Rex" not in answer.text and "nervous" not in answer.text


async def test_empty_payload_list(client: httpx.AsyncClient) -> None:
    bodies: list[dict[str, Any]] = [{"payloads": []}, {}]
    for body in bodies:
        answer = await client.post("/decode", json=body, headers=AUTH)
        assert answer.status_code == 200
        assert answer.json() == {"payloads": []}


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Origin": UI}],
    ids=["none", "wrong", "no-scheme", "ui-origin-without-exemption"],
)
async def test_without_the_token_401(client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    for path in ("/decode", "/encode"):
        answer = await client.post(path, json={"payloads": []}, headers=headers)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[]",
        b'{"payloads": {}}',
        b'{"payloads": [1]}',
        b'{"payloads": [{"data": "%%%%"}]}',
        b'{"payloads": [{"data": "a"}]}',
        b'{"payloads": [{"metadata": {"encoding": "!!!!"}, "data": ""}]}',
        b'{"payloads": [{"metadata": [], "data": ""}]}',
        b"\xff\xfe",
    ],
)
async def test_malformed_bodies_400(client: httpx.AsyncClient, body: bytes) -> None:
    answer = await client.post("/decode", content=body, headers=AUTH)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "bad_payloads"


async def test_undecryptable_payloads_400(client: httpx.AsyncClient) -> None:
    other_key = create_app(EncryptingCodec([os.urandom(32)]), token=TOKEN, ui_origins=[UI])
    async for foreign in client_for(other_key):
        sealed = await encode(foreign, plain(MESSAGE))
    answer = await client.post("/decode", json=sealed, headers=AUTH)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_payloads"
    assert "not configured" in answer.json()["error"]["message"]


async def test_plain_json_that_is_not_json_is_redacted_whole(client: httpx.AsyncClient) -> None:
    broken = Payload(metadata={"encoding": b"json/plain"}, data=b"my secret, not json")
    answer = await client.post("/decode", json=payloads_json([broken]), headers=AUTH)
    assert values(answer.json()) == ["[redacted unreadable]"]


async def test_cors_preflight_for_the_ui_origin_only(client: httpx.AsyncClient) -> None:
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-namespace",
    }
    ok = await client.options("/decode", headers={"Origin": UI, **preflight})
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == UI
    assert "x-namespace" in ok.headers["access-control-allow-headers"].lower()

    evil = await client.options("/decode", headers={"Origin": "http://evil.example", **preflight})
    assert "access-control-allow-origin" not in evil.headers
    answer = await client.post("/decode", json={}, headers={**AUTH, "Origin": "http://evil.ex"})
    assert "access-control-allow-origin" not in answer.headers


def local_settings(tmp_path: Path, **kwargs: Any) -> Settings:
    settings = Settings(
        data_dir=tmp_path / "data", temporal_payload_keys=SecretStr(base64.b64encode(KEY).decode())
    )
    settings = settings.model_copy(update=kwargs)
    ensure_local_secrets(settings)
    return settings


async def test_settings_wire_token_origin_and_exemption(tmp_path: Path) -> None:
    settings = local_settings(tmp_path)
    token = (settings.secrets_dir / "codec-token").read_text().strip()
    auth = {"Authorization": f"Bearer {token}"}
    to_payloads = pydantic_data_converter.payload_converter.to_payloads
    sealed_msg = payloads_json(await EncryptingCodec([KEY]).encode(to_payloads([MESSAGE])))
    async for client in client_for(app_from_settings(settings)):
        assert (await client.post("/decode", json=sealed_msg, headers=auth)).status_code == 200
        # The dev UI (its origin, loopback bind, no explicit token) may call without one ...
        ui = await client.post("/decode", json=sealed_msg, headers={"Origin": UI})
        assert ui.status_code == 200
        assert values(ui.json())[0]["text"].startswith("[redacted")
        # ... another origin may not.
        other = await client.post("/decode", json={}, headers={"Origin": "http://x.example"})
        assert other.status_code == 401

    for strict in (
        local_settings(tmp_path, codec_token=SecretStr("explicit")),
        local_settings(tmp_path, bind_host="0.0.0.0", codec_cors_origin=UI),  # noqa: S104
    ):
        async for client in client_for(app_from_settings(strict)):
            refused = await client.post("/decode", json={}, headers={"Origin": UI})
            assert refused.status_code == 401

    async for client in client_for(app_from_settings(settings, show_user_text=True)):
        shown = await client.post("/decode", json=sealed_msg, headers=auth)
        assert values(shown.json()) == [MESSAGE]


async def test_the_local_ui_opened_as_localhost_decodes_too(tmp_path: Path) -> None:
    # The same dev UI reached as http://localhost:8233 (as the Temporal docs spell it): the
    # browser sends that origin, and without a grant for it the UI showed ciphertext.
    settings = local_settings(tmp_path)
    localhost = "http://localhost:8233"
    preflight = {"Access-Control-Request-Method": "POST", "Origin": localhost}
    sealed = payloads_json(
        await EncryptingCodec([KEY]).encode(
            pydantic_data_converter.payload_converter.to_payloads([MESSAGE])
        )
    )
    async for client in client_for(app_from_settings(settings)):
        granted = await client.options("/decode", headers=preflight)
        assert granted.headers.get("access-control-allow-origin") == localhost
        answer = await client.post("/decode", json=sealed, headers={"Origin": localhost})
        assert answer.status_code == 200
        assert values(answer.json())[0]["user_id"] == "u1"
        other_port = await client.post(
            "/decode", json=sealed, headers={"Origin": "http://localhost:9999"}
        )
        assert other_port.status_code == 401
    # An explicit origin, or a UI that is not on 127.0.0.1, gets exactly what was configured.
    explicit = local_settings(tmp_path, codec_cors_origin="https://temporal.example")
    assert ui_origins(explicit) == ["https://temporal.example"]
    assert ui_origins(local_settings(tmp_path, bind_host="10.0.0.5")) == ["http://10.0.0.5:8233"]


async def test_an_erased_users_payloads_show_as_erased_and_the_rest_decode() -> None:
    """Issue 37: after an erasure destroyed the user's data key, the UI still shows the rest of
    a history; the erased user's payloads read "[erased]", never their words."""
    store = InMemoryDataKeyStore(LocalKek(os.urandom(32)))
    codec = EncryptingCodec([KEY], DataKeyPayloadKeys(store, ttl_s=0))
    to_payloads = pydantic_data_converter.payload_converter.to_payloads
    context = WorkflowSerializationContext(namespace="default", workflow_id="user-t1-u1")
    [users] = await codec.with_context(context).encode(to_payloads([MESSAGE]))
    [deployments] = await codec.encode(to_payloads([{"tier": "hot"}]))
    store.destroy("t1", "u1")
    async for client in client_for(
        create_app(codec, token=TOKEN, ui_origins=[UI], show_user_text=True)
    ):
        answer = await client.post(
            "/decode", json=payloads_json([users, deployments]), headers=AUTH
        )
        assert answer.status_code == 200, answer.text
        assert values(answer.json()) == ["[erased]", {"tier": "hot"}]
        assert "nervous" not in answer.text
