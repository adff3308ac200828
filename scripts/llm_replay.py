"""Benchmark-only stand-in for the extraction LLM: record what a real model answered, replay it.

`bench_api.py` measures ingestion throughput twice: with the local model, and without any model
inference at all, so that the rest of the pipeline (prompt, answer parsing, the apply rules,
embedding, graph writes, the workflow) is measured on its own. For the second figure the gpu
worker talks to this server instead of llama.cpp, through the same OpenAI-compatible client:

- `record`: forwards each chat completion to the real server and keeps its answer, split per
  message id (a candidate belongs to the first message it cites; an edge to the message of its
  source);
- `replay`: answers at once from those recordings, whatever the batch: message `m<j>` gets the
  recording of `m<j mod period>` with its ids rewritten, so a long replay repeats the recorded
  conversation (and so also exercises reinforcement of memories seen before).

Never used outside benchmarks: a replayed answer is a real model's answer to another prompt.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

# "[<id>] <date> <role>: <text>" lines of the extraction prompt (selfimprint/prompts/extraction.py)
_MESSAGE_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] \d{4}-\d{2}-\d{2} ", re.MULTILINE)
_NUMBERED = re.compile(r"^(?P<stem>.*?)(?P<n>\d+)$")


def message_ids(body: dict[str, Any]) -> list[str]:
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    return _MESSAGE_LINE.findall(prompt)


@dataclass
class PerMessage:
    candidates: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Recordings:
    by_message: dict[str, PerMessage] = field(default_factory=dict)
    answers: int = 0  # batches recorded
    unusable: int = 0  # answers that were not JSON of the expected shape (not recorded)
    abandoned: int = 0  # answers that came after the worker had given up (not recorded)
    misses: int = 0  # replayed message ids with no recording

    def describe(self) -> str:
        candidates = sum(len(m.candidates) for m in self.by_message.values())
        return (
            f"{self.answers} of {self.answers + self.unusable + self.abandoned} answers usable, "
            f"{candidates} memories from {len(self.by_message)} messages; {self.misses} misses"
        )

    def record(self, ids: list[str], answer: dict[str, Any]) -> None:
        """Split one batch's answer by the message each candidate cites first. Refs are made
        unique across answers (every answer numbers from n1). A batch recorded again (a retry)
        replaces what its messages had. Raises on an answer of the wrong shape, recording
        nothing of it."""
        number = self.answers + 1
        split: dict[str, PerMessage] = {i: PerMessage() for i in ids}
        owner_of: dict[str, str] = {}
        for candidate in answer["candidates"]:
            cited = [i for i in candidate["source_message_ids"] if i in split]
            owner = cited[0] if cited else (ids[0] if ids else "")
            owner_of[candidate["ref"]] = owner
            keyed = candidate | {"ref": f"{number}:{candidate['ref']}"}
            split.setdefault(owner, PerMessage()).candidates.append(keyed)
        for edge in answer["edges"]:
            owner = owner_of.get(edge["source_ref"])
            if owner is not None and edge["target_ref"] in owner_of:
                split[owner].edges.append(
                    edge
                    | {
                        "source_ref": f"{number}:{edge['source_ref']}",
                        "target_ref": f"{number}:{edge['target_ref']}",
                    }
                )
        self.by_message.update(split)
        self.answers = number

    def canonical(self, message_id: str) -> str | None:
        """The recorded id that `message_id` replays: itself, or m<j mod period>."""
        if message_id in self.by_message:
            return message_id
        numbered = _NUMBERED.match(message_id)
        if numbered is None or not self.by_message:
            return None
        stem, n = numbered["stem"], int(numbered["n"])
        recorded = sorted(
            int(m["n"])
            for m in map(_NUMBERED.match, self.by_message)
            if m is not None and m["stem"] == stem
        )
        return f"{stem}{recorded[n % len(recorded)]}" if recorded else None

    def replay(self, ids: list[str]) -> dict[str, Any]:
        """An answer for this batch: the recordings of its messages, refs renumbered. An edge
        is kept when both its ends are in the batch (edges to the recorded user's older
        memories have nothing to point at here)."""
        candidates: list[dict[str, Any]] = []
        edges: list[dict[str, Any]] = []
        renamed: dict[str, str] = {}
        for message_id in ids:
            source = self.canonical(message_id)
            if source is None:
                self.misses += 1
                continue
            recorded = self.by_message[source]
            for c in recorded.candidates:
                renamed[c["ref"]] = f"n{len(candidates) + 1}"
                cited = [message_id if i == source else i for i in c.get("source_message_ids", [])]
                candidates.append(c | {"ref": renamed[c["ref"]], "source_message_ids": cited})
            edges += recorded.edges
        kept = [
            e | {"source_ref": renamed[e["source_ref"]], "target_ref": renamed[e["target_ref"]]}
            for e in edges
            if e["source_ref"] in renamed and e["target_ref"] in renamed
        ]
        return {"candidates": candidates, "edges": kept}


def _sse(content: str, model: str) -> AsyncIterator[bytes]:
    """The whole answer as one OpenAI streaming chunk, then the stop chunk and [DONE]."""

    async def chunks() -> AsyncIterator[bytes]:
        base = {"id": "replay", "object": "chat.completion.chunk", "created": int(time.time())}
        first = base | {
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "content": content},
                    "finish_reason": None,
                }
            ],
        }
        last = base | {
            "model": model,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
        yield f"data: {json.dumps(first)}\n\n".encode()
        yield f"data: {json.dumps(last)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    return chunks()


class ReplayServer:
    """A Starlette app on its own thread; `upstream` set = record mode, None = replay mode."""

    def __init__(self, port: int, upstream: str | None) -> None:
        self.recordings = Recordings()
        self.upstream = upstream
        self._port = port
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._complete, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/health", self._models, methods=["GET"]),
            ]
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("replay server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "replay", "object": "model"}]})

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        ids = message_ids(body)
        model = str(body.get("model", "replay"))
        if self.upstream is None:
            answer = json.dumps(self.recordings.replay(ids))
            return StreamingResponse(_sse(answer, model), media_type="text/event-stream")
        forwarded = body | {"stream": False}
        async with httpx.AsyncClient(timeout=600) as http:
            upstream = await http.post(f"{self.upstream}/chat/completions", json=forwarded)
        upstream.raise_for_status()
        content = str(upstream.json()["choices"][0]["message"]["content"])
        if await request.is_disconnected():
            # The worker gave up (timeout) and will retry: record the retry's answer instead.
            self.recordings.abandoned += 1
            return Response(status_code=499)
        try:
            self.recordings.record(ids, json.loads(content))
        except (ValueError, KeyError, TypeError, AttributeError):
            # Cut off or malformed: the worker falls back to verbatim; nothing to replay.
            self.recordings.unusable += 1
        return StreamingResponse(_sse(content, model), media_type="text/event-stream")
