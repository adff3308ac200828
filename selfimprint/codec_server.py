"""Temporal codec server: lets the Temporal Web UI (and `temporal` CLI) show decrypted payloads.

Every payload in Temporal history is AES-256-GCM ciphertext (adapters/payload_codec.py), so an
operator inspecting a failed sleep run sees only blobs. The UI can instead POST the payloads to a
codec server (the Temporal "remote codec" HTTP protocol: `POST <endpoint>/encode` and
`<endpoint>/decode`, body and answer `{"payloads": [{"metadata": {k: base64}, "data": base64}]}`,
the namespace in `X-Namespace`). This server answers with the same codec and keys the workers
use, so it decrypts exactly what they wrote.

Who may call it:
- a client with `Authorization: Bearer <token>` (SELFIMPRINT_CODEC_TOKEN, or the one `dev up`
  generates into <data_dir>/secrets/codec-token), compared in constant time;
- the dev UI without a token, only when no token was configured explicitly *and* the server is
  bound to a loopback address *and* the request's Origin is the UI's (`ui_origins`). The Temporal
  UI cannot send a static token: its "pass access token" option forwards the UI's own OIDC login
  token (HTTPS only), and the local dev UI has no login. A browser cannot fake Origin, so other
  web sites open in the operator's browser are still refused (no CORS grant, 401); a local process
  can fake it, but on loopback that process can already read the payload key in the data dir.
- CORS is granted to the UI's origins only.

Privacy: decoded payloads carry users' own words (message texts, memory contents). Operators
debug workflows (which activity failed, with which ids, counts and settings); they do not need to
read what users wrote, so by the GDPR's data-minimisation principle /decode replaces string
fields that hold user text (`REDACTED_FIELDS`) with "[redacted N chars]" unless the server was
started with `--show-user-text` (SELFIMPRINT_CODEC_SHOW_USER_TEXT), a deliberate, logged choice.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.converter import PayloadCodec

from selfimprint.adapters.payload_codec import (
    PayloadErasedError,
    PayloadKeyError,
    PayloadTamperedError,
)
from selfimprint.config import Settings
from selfimprint.logging import get_logger

log = get_logger("selfimprint.codec_server")  # not __main__ under `python -m`

# Fields of our workflow and activity models that hold a user's words: message texts, memory
# contents (also as the sleep phase's plain lists of them), open-loop questions quoting them,
# hypotheses stated about the user, the subject of a forget request. Found by reading decoded
# histories of a real lifecycle and sleep pass; a new model field with user text belongs here.
REDACTED_FIELDS = frozenset(
    {"text", "content", "memories", "new_memories", "question", "statement", "topic"}
)
# Encodings whose data is JSON that the redaction can walk (pydantic models are json/plain).
_JSON_ENCODINGS = frozenset({b"json/plain", b"json/protobuf"})
# The headers the Temporal UI sends with a codec request (the last two with "pass access token").
_UI_HEADERS = ["Content-Type", "X-Namespace", "Authorization", "Authorization-Extras"]
# Two spellings of the local dev UI's address (the dev server binds it to 127.0.0.1).
_LOCAL_UI_HOSTS = ("127.0.0.1", "localhost")


class BadPayloadsError(ValueError):
    """The request body is not a valid Payloads JSON object."""


class _PassThroughCodec(PayloadCodec):
    """Encryption turned off for the deployment: payloads are already readable."""

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _check_base64(value: object, where: str) -> None:
    # The protobuf JSON parser decodes leniently (it drops characters outside the alphabet), so
    # a corrupted payload would silently become different bytes; refuse it instead.
    if not isinstance(value, str):
        raise BadPayloadsError(f"{where} must be a base64 string")
    standard = value.replace("-", "+").replace("_", "/")  # proto JSON also allows URL-safe
    try:
        base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except binascii.Error as exc:
        raise BadPayloadsError(f"{where} is not valid base64") from exc


def parse_payloads(body: bytes) -> list[Payload]:
    try:
        raw = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadPayloadsError("the body is not JSON") from exc
    if not isinstance(raw, dict):
        raise BadPayloadsError('the body must be an object {"payloads": [...]}')
    items = raw.get("payloads", [])  # proto3 JSON omits an empty list
    if not isinstance(items, list):
        raise BadPayloadsError('"payloads" must be a list')
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BadPayloadsError(f"payloads[{i}] must be an object")
        metadata = item.get("metadata", {})
        if not isinstance(metadata, dict):
            raise BadPayloadsError(f"payloads[{i}].metadata must be an object")
        for key, value in metadata.items():
            _check_base64(value, f"payloads[{i}].metadata[{key!r}]")
        if "data" in item:
            _check_base64(item["data"], f"payloads[{i}].data")
    try:
        parsed = json_format.ParseDict(raw, Payloads(), ignore_unknown_fields=True)
    except json_format.ParseError as exc:
        raise BadPayloadsError(f"not a Payloads object: {exc}") from exc
    return list(parsed.payloads)


def payloads_json(payloads: Sequence[Payload]) -> dict[str, Any]:
    # Always a list, also when empty: the UI reads `answer.payloads` unconditionally.
    return {"payloads": [json_format.MessageToDict(p) for p in payloads]}


def _redact_value(value: Any) -> tuple[Any, int]:
    """(value with user text replaced, number of fields replaced)."""
    if isinstance(value, dict):
        total = 0
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in REDACTED_FIELDS and isinstance(item, str):
                out[key], total = f"[redacted {len(item)} chars]", total + 1
            elif key in REDACTED_FIELDS and isinstance(item, list):
                # A list of texts (the sleep phase's `memories`); records in it are walked.
                entries = [
                    (f"[redacted {len(e)} chars]", 1) if isinstance(e, str) else _redact_value(e)
                    for e in item
                ]
                out[key] = [v for v, _ in entries]
                total += sum(n for _, n in entries)
            else:
                out[key], n = _redact_value(item)
                total += n
        return out, total
    if isinstance(value, list):
        redacted = [_redact_value(item) for item in value]
        return [v for v, _ in redacted], sum(n for _, n in redacted)
    return value, 0


def redact_user_text(payload: Payload) -> tuple[Payload, int]:
    if payload.metadata.get("encoding") not in _JSON_ENCODINGS:
        return payload, 0  # binary/null, protobuf, or still-encrypted (unknown key) data
    try:
        value = json.loads(payload.data)
    except (UnicodeDecodeError, json.JSONDecodeError):
        # Says JSON but is not: it may still be user text, so show none of it.
        return Payload(metadata=dict(payload.metadata), data=b'"[redacted unreadable]"'), 1
    redacted, count = _redact_value(value)
    if not count:
        return payload, 0
    data = json.dumps(redacted, ensure_ascii=False, separators=(",", ":")).encode()
    return Payload(metadata=dict(payload.metadata), data=data), count


async def decode_showing_erased(codec: PayloadCodec, payloads: Sequence[Payload]) -> list[Payload]:
    """Decoded payloads; one of an erased user (issue 37: their data key destroyed) is shown as
    the JSON string "[erased]" instead of failing the whole request, so the UI still shows the
    rest of the history."""
    out = []
    for payload in payloads:
        try:
            out.extend(await codec.decode([payload]))
        except PayloadErasedError:
            out.append(Payload(metadata={"encoding": b"json/plain"}, data=b'"[erased]"'))
    return out


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ui_origins(settings: Settings) -> list[str]:
    """The UI origins allowed to call: the configured one, and for the default local UI on
    127.0.0.1 also `localhost`, the same UI: the browser sends the host as typed in the
    address bar, and the UI opened at http://localhost:8233 would otherwise get no CORS grant
    and show ciphertext."""
    if settings.codec_cors_origin is not None or settings.bind_host not in _LOCAL_UI_HOSTS:
        return [settings.codec_ui_origin]
    return [f"http://{host}:{settings.temporal_ui_port}" for host in _LOCAL_UI_HOSTS]


def create_app(
    codec: PayloadCodec,
    *,
    token: str,
    ui_origins: Sequence[str],
    ui_without_token: bool = False,
    show_user_text: bool = False,
) -> Starlette:
    """`ui_without_token`: accept requests whose Origin is one of `ui_origins` without a token
    (the caller decides when that is safe: see the module docstring)."""
    expected = f"Bearer {token}".encode()
    origins = list(ui_origins)

    def authorised(request: Request) -> bool:
        given = request.headers.get("authorization", "").encode()
        if hmac.compare_digest(given, expected):
            return True
        return ui_without_token and request.headers.get("origin") in origins

    def handler(
        operation: str, run: Callable[[Sequence[Payload]], Awaitable[list[Payload]]]
    ) -> Callable[[Request], Awaitable[JSONResponse]]:
        async def endpoint(request: Request) -> JSONResponse:
            namespace = request.headers.get("x-namespace", "")
            client = request.client.host if request.client else None
            if not authorised(request):
                log.warning("codec.unauthorized", operation=operation, client=client)
                return _error(401, "unauthorized", "a valid `Authorization: Bearer` is required")
            try:
                payloads = parse_payloads(await request.body())
                out = await run(payloads)
            except (BadPayloadsError, PayloadKeyError, PayloadTamperedError) as exc:
                log.warning("codec.bad_payloads", operation=operation, error=str(exc))
                return _error(400, "bad_payloads", str(exc))
            redacted = 0
            if operation == "decode" and not show_user_text:
                results = [redact_user_text(p) for p in out]
                out, redacted = [p for p, _ in results], sum(n for _, n in results)
            # Never the payloads themselves: only what helps to follow the calls.
            log.info(
                "codec.request",
                operation=operation,
                namespace=namespace,
                payloads=len(out),
                redacted_fields=redacted,
            )
            return JSONResponse(payloads_json(out))

        return endpoint

    return Starlette(
        routes=[
            Route("/encode", handler("encode", codec.encode), methods=["POST"]),
            Route(
                "/decode",
                handler("decode", lambda p: decode_showing_erased(codec, p)),
                methods=["POST"],
            ),
        ],
        middleware=[
            Middleware(
                CORSMiddleware,
                allow_origins=origins,
                allow_methods=["POST"],
                allow_headers=_UI_HEADERS,
                max_age=600,
            )
        ],
    )


def app_from_settings(settings: Settings, show_user_text: bool | None = None) -> Starlette:
    from selfimprint.adapters.temporal import data_converter

    codec = data_converter(settings).payload_codec or _PassThroughCodec()
    token = settings.secret(settings.codec_token, "codec-token")
    show = settings.codec_show_user_text if show_user_text is None else show_user_text
    ui_without_token = settings.codec_token is None and is_loopback(settings.bind_host)
    if show:
        log.warning("codec.user_text_shown", reason="started with --show-user-text")
    return create_app(
        codec,
        token=token,
        ui_origins=ui_origins(settings),
        ui_without_token=ui_without_token,
        show_user_text=show,
    )


def serve(settings: Settings, port: int | None = None, show_user_text: bool | None = None) -> None:
    import uvicorn

    app = app_from_settings(settings, show_user_text)
    log.info(
        "codec.serving",
        url=f"http://{settings.bind_host}:{port or settings.codec_port}",
        ui_origins=ui_origins(settings),
    )
    uvicorn.run(
        app,
        host=settings.bind_host,
        port=port or settings.codec_port,
        log_config=None,  # keep our structlog handlers
        access_log=False,
    )


def main() -> None:
    """`python -m selfimprint.codec_server`: how `dev up` starts it (settings from the env)."""
    from selfimprint.logging import configure_logging

    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    serve(settings)


if __name__ == "__main__":
    main()
