"""The Python client package (clients/python, issue 36) against a mocked transport: requests as
the API expects them, errors as typed exceptions, retries only where a call is safe to send
again and never past the budget, the same for the blocking and the async client; the blocking
client is the current transform of the async one, and every /v1 route has a method."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import selfimprint_client
import selfimprint_client._async_client as async_module
import selfimprint_client._sync_client as sync_module
from selfimprint_client import (
    AsyncSelfImprint,
    ConflictError,
    Context,
    InvalidRequestError,
    Message,
    NotFoundError,
    PayloadTooLargeError,
    SelfImprint,
    SelfImprintError,
    UnauthorizedError,
    UnavailableError,
)

from api.app import create_app
from selfimprint import client as server_client
from selfimprint.domain.messages import Message as ServerMessage
from selfimprint.domain.messages import Role
from selfimprint.domain.sleep_policy import Plan
from selfimprint.domain.users import UserProfile as ServerProfile

pytestmark = pytest.mark.unit

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
KINDS = ["sync", "async"]
NOW = datetime(2026, 3, 3, 19, 5, tzinfo=UTC)
Handler = Callable[[httpx.Request], httpx.Response]

CONTEXT = {
    "context": "The user's sister Anna moves to Lisbon in June.",
    "language": "en",
    "mode": "fast",
    "tokens": 12,
    "memories": [
        {"id": "m-1", "type": "fact", "content": "Anna moves.", "score": 0.9, "sources": ["m1"]}
    ],
    "open_loop_questions": [],
    "tier": "hot",
    "extraction": {"pending": 1, "oldest_pending_sent_at": "2026-03-03T19:05:00Z"},
    "pending_messages": [
        {"id": "m2", "sent_at": "2026-03-03T19:05:00Z", "text": "Anna...", "truncated": False}
    ],
    "timings_ms": {"total": 3.5},
    "a_field_of_a_newer_server": True,
}


def error(status: int, code: str, details: Any = None) -> httpx.Response:
    body: dict[str, Any] = {"code": code, "message": f"{code} happened"}
    if details is not None:
        body["details"] = details
    return httpx.Response(status, json={"error": body})


async def invoke(kind: str, handler: Handler, method: str, *args: Any, **kwargs: Any) -> Any:
    """`method` of a fresh client of `kind` on a mocked API."""
    transport = httpx.MockTransport(handler)
    if kind == "async":
        async with AsyncSelfImprint("http://api/", "si_key", transport=transport) as client:
            return await getattr(client, method)(*args, **kwargs)
    with SelfImprint("http://api/", "si_key", transport=transport) as blocking:
        return getattr(blocking, method)(*args, **kwargs)


class Recorded:
    """The requests a mocked API got, and the waits between attempts."""

    def __init__(self, answers: list[httpx.Response | Exception]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []
        self.waits: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[httpx.Response | Exception]], Recorded]:
    """A mocked API answering in turn (the last answer repeats); waits recorded, not slept."""

    def make(answers: list[httpx.Response | Exception]) -> Recorded:
        recorded = Recorded(answers)

        async def wait_async(seconds: float) -> None:
            recorded.waits.append(seconds)

        monkeypatch.setattr(async_module, "sleep", wait_async)
        monkeypatch.setattr(sync_module, "sleep", recorded.waits.append)
        return recorded

    return make


# --- requests ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_messages_go_as_the_api_reads_them_from_any_model_or_mapping(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    accepted = {"accepted": 2, "duplicates": 1, "extraction": {"pending": 3}}
    mock = api([httpx.Response(202, json=accepted)])
    messages = [
        Message(id="m1", role="user", text="I live in Lisbon.", sent_at=NOW),
        # The server's own model (its callers pass it) and a plain mapping go the same way.
        ServerMessage(id="m2", role=Role.ASSISTANT, text="Nice!", sent_at=NOW),
        {"id": "m3", "role": "user", "text": "Yes.", "sent_at": NOW},
    ]
    answer = await invoke(kind, mock, "post_messages", "alice", messages)
    assert (answer.accepted, answer.duplicates, answer.extraction.pending) == (2, 1, 3)
    (request,) = mock.requests
    assert (request.method, request.url.path) == ("POST", "/v1/users/alice/messages")
    assert request.headers["authorization"] == "Bearer si_key"
    sent = json.loads(request.content)["messages"]
    assert [m["id"] for m in sent] == ["m1", "m2", "m3"]
    assert {m["sent_at"] for m in sent} == {"2026-03-03T19:05:00Z"}
    assert sent[1]["role"] == "assistant"


@pytest.mark.parametrize("kind", KINDS)
async def test_profiles_context_and_corrections_are_shaped_as_the_schema_says(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([httpx.Response(200, json={"user_id": "a/b"})])
    await invoke(kind, mock, "put_user", "a/b", ServerProfile(plan=Plan.PAID))
    await invoke(kind, mock, "put_user", "a/b")
    first, default = mock.requests
    assert first.url.raw_path == b"/v1/users/a%2Fb"  # a path parameter stays one segment
    assert json.loads(first.content)["plan"] == "paid"
    assert json.loads(default.content) == {
        "plan": "free",
        "time_zone": "UTC",
        "language": None,
        "medical_deployment": False,
    }

    mock = api([httpx.Response(200, json=CONTEXT)])
    ctx = await invoke(kind, mock, "context", "alice", "Where?", after_message="m2")
    assert isinstance(ctx, Context)
    assert ctx.memories[0].id == "m-1" and ctx.pending_messages[0].id == "m2"
    assert ctx.extraction.oldest_pending_sent_at == NOW
    assert json.loads(mock.requests[0].content) == {
        "message": "Where?",
        "budget_tokens": 400,
        "mode": "fast",
        "after_message": "m2",
    }

    mock = api([httpx.Response(200, json={"id": "m-1"})])
    await invoke(kind, mock, "patch_memory", "alice", "m-1", wrong=True)
    assert json.loads(mock.requests[0].content) == {"wrong": True}
    mock = api([httpx.Response(200, json={"memories": [{"id": "m-1"}], "next_offset": None})])
    assert await invoke(kind, mock, "memories", "alice", archived=False, limit=5) == [{"id": "m-1"}]
    assert dict(mock.requests[0].url.params) == {"archived": "false", "limit": "5"}


@pytest.mark.parametrize("kind", KINDS)
async def test_the_portrait_comes_as_text_or_as_data_by_accept(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([httpx.Response(200, text="## Fact: I live in Lisbon.")])
    assert await invoke(kind, mock, "portrait", "alice") == "## Fact: I live in Lisbon."
    assert mock.requests[0].headers["accept"] == "text/plain"
    data = {"memories": [{"id": "m-1"}], "tensions": [], "next_offset": None}
    mock = api([httpx.Response(200, json=data)])
    assert await invoke(kind, mock, "portrait_data", "alice", limit=10) == data
    assert mock.requests[0].headers["accept"] == "application/json"
    assert mock.requests[0].url.params["limit"] == "10"
    # A text answer through `request` is text, not a JSON error (issue 36).
    mock = api([httpx.Response(200, text="plain words")])
    assert await invoke(kind, mock, "request", "GET", "/v1/users/alice/portrait") == "plain words"
    mock = api([httpx.Response(204)])
    assert await invoke(kind, mock, "delete_memory", "alice", "m-1") is None
    # A new user's portrait is empty text, not None.
    mock = api([httpx.Response(200, text="")])
    assert await invoke(kind, mock, "portrait", "alice") == ""


@pytest.mark.parametrize("kind", KINDS)
async def test_a_raw_request_keeps_its_query_and_its_headers(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([httpx.Response(200, json={"tensions": []})])
    path = "/v1/users/alice/portrait?limit=1"
    accept = "text/plain;q=0.5, application/json"
    assert await invoke(kind, mock, "request", "GET", path, headers={"Accept": accept}) == {
        "tensions": []
    }
    (request,) = mock.requests
    assert request.url.params["limit"] == "1"
    assert request.headers.get_list("accept") == [accept]


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("status", "code", "kind_of_error"),
    [
        (401, "unauthorized", UnauthorizedError),
        (404, "unknown_user", NotFoundError),
        (409, "message_conflict", ConflictError),
        (413, "payload_too_large", PayloadTooLargeError),
        (422, "unknown_message", InvalidRequestError),
        (503, "store_unavailable", UnavailableError),
    ],
)
async def test_each_error_status_raises_its_typed_error(
    kind: str,
    status: int,
    code: str,
    kind_of_error: type[SelfImprintError],
    api: Callable[[list[httpx.Response | Exception]], Recorded],
) -> None:
    mock = api([error(status, code, {"ids": ["m1"]})])
    with pytest.raises(kind_of_error) as raised:
        await invoke(kind, mock, "get_user", "alice")
    assert isinstance(raised.value, SelfImprintError)
    assert (raised.value.status, raised.value.code) == (status, code)
    assert raised.value.message == f"{code} happened"
    assert raised.value.details == {"ids": ["m1"]}


@pytest.mark.parametrize("kind", KINDS)
async def test_an_answer_that_is_not_the_apis_keeps_its_status(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([httpx.Response(502, text="<html>Bad gateway</html>")])
    with pytest.raises(SelfImprintError) as raised:
        await invoke(kind, mock, "export", "alice")
    assert type(raised.value) is SelfImprintError
    assert (raised.value.status, raised.value.code) == (502, "http_error")
    assert "Bad gateway" in raised.value.message


# --- retries -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_a_retry_safe_call_is_sent_again_after_a_503_or_a_network_error(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api(
        [
            error(503, "store_unavailable"),
            httpx.ConnectError("refused"),
            httpx.Response(200, json=CONTEXT),
        ]
    )
    ctx = await invoke(kind, mock, "context", "alice", "Where?")
    assert ctx.context.startswith("The user's sister")
    assert len(mock.requests) == 3
    assert mock.waits == [0.2, 0.4]  # the wait doubles


@pytest.mark.parametrize("kind", KINDS)
async def test_retries_stop_at_the_budget(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([error(503, "orchestrator_unavailable")])
    with pytest.raises(UnavailableError):
        await invoke(kind, mock, "post_messages", "alice", [])
    assert len(mock.requests) == 3  # 1 + retries (2)

    mock = api([httpx.ReadTimeout("slow")])
    with pytest.raises(httpx.ReadTimeout):
        await invoke(kind, mock, "delete_user", "alice")
    assert len(mock.requests) == 3


@pytest.mark.parametrize("kind", KINDS)
async def test_forget_and_answers_that_another_attempt_cannot_change_are_not_retried(
    kind: str, api: Callable[[list[httpx.Response | Exception]], Recorded]
) -> None:
    mock = api([error(503, "orchestrator_unavailable")])
    with pytest.raises(UnavailableError):
        await invoke(kind, mock, "forget", "alice", "chess", dry_run=False)
    assert len(mock.requests) == 1
    mock = api([httpx.ConnectError("refused")])
    with pytest.raises(httpx.ConnectError):
        await invoke(kind, mock, "forget", "alice", "chess")
    assert len(mock.requests) == 1
    # A 4xx is the answer: sending it again changes nothing.
    mock = api([error(404, "unknown_user")])
    with pytest.raises(NotFoundError):
        await invoke(kind, mock, "memory", "alice", "m-1")
    assert len(mock.requests) == 1
    # A raw POST is retried only when the caller says it is safe.
    mock = api([error(503, "store_unavailable")])
    with pytest.raises(UnavailableError):
        await invoke(kind, mock, "request", "POST", "/v1/users/alice/forget", json={})
    assert len(mock.requests) == 1
    assert mock.waits == []


async def test_retries_are_configurable(
    api: Callable[[list[httpx.Response | Exception]], Recorded],
) -> None:
    mock = api([error(503, "store_unavailable")])
    transport = httpx.MockTransport(mock)
    with (
        SelfImprint("http://api", "k", retries=4, backoff_s=1.0, transport=transport) as client,
        pytest.raises(UnavailableError),
    ):
        client.get_user("alice")
    assert mock.waits == [1.0, 2.0, 4.0, 8.0]


# --- one source, every route ---------------------------------------------------------------


def _generator() -> ModuleType:
    path = CLIENT / "scripts" / "generate_sync_client.py"
    spec = importlib.util.spec_from_file_location("generate_sync_client", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_blocking_client_is_the_current_transform_of_the_async_one() -> None:
    generator = _generator()
    assert generator.TARGET.read_text() == generator.render(), (
        "run .venv/bin/python clients/python/scripts/generate_sync_client.py"
    )


def test_both_clients_have_the_same_methods_blocking_and_async() -> None:
    def methods(cls: type) -> dict[str, Callable[..., Any]]:
        return {n: f for n, f in vars(cls).items() if callable(f) and not n.startswith("__")}

    async_methods, sync_methods = methods(AsyncSelfImprint), methods(SelfImprint)
    assert set(async_methods) == set(sync_methods)
    for name, method in async_methods.items():
        assert inspect.iscoroutinefunction(method), name
        assert not inspect.iscoroutinefunction(sync_methods[name]), name
        assert inspect.signature(method) == inspect.signature(sync_methods[name]), name


def _called_routes() -> set[tuple[str, str]]:
    """(method, template) of every `self._call("GET", "/v1/...", ...)` of the async client."""
    tree = ast.parse(Path(async_module.__file__).read_text())
    called = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "_call"
        ):
            method, template = (arg.value for arg in node.args[:2] if isinstance(arg, ast.Constant))
            called.add((str(method), str(template)))
    return called


def test_the_python_client_has_a_method_for_every_route() -> None:
    """The client calls each route by its schema template: a /v1 route without a method, or a
    method whose route the schema no longer has, fails here."""
    schema = create_app().openapi()
    routes = {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
        if path.startswith("/v1/")
    }
    called = _called_routes()
    assert len(routes) >= 20
    assert routes - called == set(), "routes without a Python client method"
    assert called - routes == set(), "Python client methods for routes the API lacks"


def test_the_servers_module_is_the_package_under_its_old_names() -> None:
    assert issubclass(server_client.SelfImprintClient, AsyncSelfImprint)
    assert server_client.ApiError is SelfImprintError
    assert server_client.Context is selfimprint_client.Context
    # The package stands alone: the standard library, httpx and pydantic, never the server.
    for path in (CLIENT / "selfimprint_client").glob("*.py"):
        imported = _top_level_imports(path) - set(sys.stdlib_module_names)
        assert imported <= {"httpx", "pydantic", "pydantic_core", "selfimprint_client"}, path


def _top_level_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names
