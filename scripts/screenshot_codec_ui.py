"""Prove in a real browser that the Temporal Web UI shows a lifecycle's payloads decoded.

Opens one user's lifecycle workflow (`UserLifecycleWorkflow`) in the Temporal UI of the running
`selfimprint dev up` stack with headless Chromium, waits until the UI has sent the input to the
codec server and rendered the answer, and checks in the DOM that:

- the Input card shows the decoded JSON of this workflow (`"tenant_id"` / `"user_id"` matching
  its id `user-{tenant}-{user}`), and neither the ciphertext the history really holds (its
  base64, read from the server) nor the codec's encoding name `binary/selfimprint-aes256gcm`;
- on the pages of the events whose payloads hold users' words (up to EVENTS_CHECKED, found by
  decoding the history here with the workers' keys), those words show as `[redacted N chars]`
  and none of the history's texts is on the page. A codec server started with
  --show-user-text fails this check, as it should.

It writes two PNGs: OUT (the workflow page with the decoded Input) and OUT with `-redacted`
before the suffix (the first such event, texts redacted). Never into the repository.

Installs nothing. Needs, once per machine (Debian 12; the versions this was run with):

    apt-get install chromium=156.0.8078.114-1~deb12u1 chromium-driver=156.0.8078.114-1~deb12u1

and talks the W3C WebDriver protocol to that chromedriver over HTTP (httpx, already a dependency),
so no browser download and no Python package beyond the project's own.

    .venv/bin/python scripts/screenshot_codec_ui.py [OUT.png] [--workflow-id user-T-U]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from webdriver import CHROMEDRIVER, CHROMIUM, BrowserError, WebDriver, wait_for

from selfimprint.adapters.payload_codec import ENCODING
from selfimprint.adapters.temporal import connect, data_converter
from selfimprint.codec_server import REDACTED_FIELDS
from selfimprint.config import Settings
from selfimprint.logging import configure_logging, get_logger

log = get_logger("scripts.screenshot_codec_ui")

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path(tempfile.gettempdir()) / "selfimprint-codec-ui.png"
# Texts shorter than this may be on the page for other reasons ("Rex", "work").
MIN_TEXT_CHARS = 12
# As many base64 characters of the ciphertext as make a chance match impossible.
CIPHERTEXT_PREFIX = 24
# Event pages opened for the redaction check (each is one page load and codec call).
EVENTS_CHECKED = 5


class CheckFailed(BrowserError):
    """The UI did not show what a decoded, redacted view must show."""


# --- what the history really holds -------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    workflow_id: str
    run_id: str
    tenant_id: str
    user_id: str
    ciphertext: str  # base64 prefix of the encrypted input, as the UI shows undecoded data
    user_texts: frozenset[str]  # the history's decoded user words, which must not be shown
    text_events: tuple[int, ...]  # ids of the events whose payloads hold some of them


def payloads_in(message: Message) -> Iterator[Payload]:
    """Every Payload anywhere in a history event (inputs, results, failures' details)."""
    if isinstance(message, Payload):
        yield message
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            items = list(value.values())
        elif field.is_repeated:
            items = list(value)
        else:
            items = [value]
        for item in items:
            if isinstance(item, Message):
                yield from payloads_in(item)


def user_texts(value: Any) -> set[str]:
    """The strings of a decoded payload that the codec server must redact."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in REDACTED_FIELDS and isinstance(item, str):
                found.add(item)
            elif key in REDACTED_FIELDS and isinstance(item, list):
                found |= {e for e in item if isinstance(e, str)}
                found |= {t for e in item if not isinstance(e, str) for t in user_texts(e)}
            else:
                found |= user_texts(item)
    elif isinstance(value, list):
        for item in value:
            found |= user_texts(item)
    return found


async def newest_lifecycle(client: Client) -> str:
    async for execution in client.list_workflows('WorkflowType = "UserLifecycleWorkflow"'):
        return execution.id  # the visibility store lists the newest start first
    raise CheckFailed("no UserLifecycleWorkflow on this server: run `selfimprint demo` first")


async def expected_for(settings: Settings, workflow_id: str | None) -> Expected:
    client = await connect(settings)
    workflow_id = workflow_id or await newest_lifecycle(client)
    handle = client.get_workflow_handle(workflow_id)
    run_id = (await handle.describe()).run_id
    history = await handle.fetch_history()  # raw events: payloads as the server stores them
    started = history.events[0].workflow_execution_started_event_attributes.input.payloads[0]
    if started.metadata.get("encoding") != ENCODING:
        raise CheckFailed(f"{workflow_id}'s input is not encrypted: nothing for a codec to prove")
    codec = data_converter(settings).payload_codec
    assert codec is not None  # encrypted payloads imply the codec is configured
    state = json.loads((await codec.decode([started]))[0].data)["state"]
    texts: set[str] = set()
    text_events: list[int] = []
    for event in history.events:
        for payload in await codec.decode(list(payloads_in(event))):
            if payload.metadata.get("encoding") != b"json/plain":
                continue
            found = {t for t in user_texts(json.loads(payload.data)) if len(t) >= MIN_TEXT_CHARS}
            if found and event.event_id not in text_events:
                text_events.append(event.event_id)
            texts |= found
    return Expected(
        workflow_id=workflow_id,
        run_id=run_id,
        tenant_id=str(state["tenant_id"]),
        user_id=str(state["user_id"]),
        ciphertext=base64.b64encode(started.data).decode()[:CIPHERTEXT_PREFIX],
        user_texts=frozenset(texts),
        text_events=tuple(text_events),
    )


# --- what the page shows -----------------------------------------------------------------------


def input_problems(input_text: str, page_text: str, expected: Expected) -> list[str]:
    """Why the Input card is not this lifecycle's decoded input (empty: it is)."""
    problems = []
    for field, value in (("tenant_id", expected.tenant_id), ("user_id", expected.user_id)):
        if f'"{field}": "{value}"' not in input_text:
            problems.append(f'the Input card does not show "{field}": "{value}"')
    if expected.ciphertext in page_text:
        problems.append("the page shows the encrypted input (its base64 ciphertext)")
    if ENCODING.decode() in page_text:
        problems.append(f"the page shows the encoding {ENCODING.decode()}")
    return problems


def shown_user_texts(page_text: str, expected: Expected) -> list[str]:
    return sorted(t for t in expected.user_texts if t in page_text)


INPUT_TEXT = "return document.querySelector('[aria-label=\"Input\"]')?.innerText ?? ''"
PAGE_TEXT = "return document.body.innerText"
SHOW_REDACTED = """
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  if (walker.currentNode.textContent.includes('[redacted ')) {
    walker.currentNode.parentElement.scrollIntoView({block: 'center'});
    return true;
  }
}
return false;
"""


def redacted_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}-redacted{out.suffix or '.png'}")


def check_redaction(
    driver: WebDriver, namespace_url: str, expected: Expected, args: argparse.Namespace
) -> None:
    """Open the events that carry users' words, one page each (the UI shows an event's payloads
    decoded on its own page): their words must read `[redacted N chars]`, none be readable."""
    if not expected.text_events:
        log.warning("ui.no_user_text", reason="the history holds no user text to check")
        return
    workflow = f"{namespace_url}/workflows/{expected.workflow_id}/{expected.run_id}"
    for n, event_id in enumerate(expected.text_events[:EVENTS_CHECKED]):
        driver.open(f"{workflow}/history/events/{event_id}")
        page = wait_for(
            driver,
            PAGE_TEXT,
            lambda t: "[redacted " in t or bool(shown_user_texts(t, expected)),
            args.timeout,
        )
        leaked = shown_user_texts(page, expected)
        if n == 0:
            driver.script(SHOW_REDACTED)
            driver.screenshot(redacted_path(args.out))
            log.info("ui.event_screenshot", path=str(redacted_path(args.out)), event_id=event_id)
        if leaked:
            raise CheckFailed(
                f"event {event_id}: {len(leaked)} user texts readable (--show-user-text?)"
            )
        if "[redacted " not in page:
            raise CheckFailed(f"event {event_id} shows no [redacted N chars] field")


def run(args: argparse.Namespace, settings: Settings) -> None:
    expected = asyncio.run(expected_for(settings, args.workflow_id))
    ui = args.ui_url or f"http://{settings.bind_host}:{settings.temporal_ui_port}"
    codec = httpx.get(f"{ui}/api/v1/settings", timeout=5.0).json()["Codec"]
    if not codec.get("Endpoint"):
        raise CheckFailed(f"the UI at {ui} has no codec endpoint (--ui-codec-endpoint not set)")
    url = (
        f"{ui}/namespaces/{settings.temporal_namespace}/workflows/"
        f"{expected.workflow_id}/{expected.run_id}/history"
    )
    log.info("ui.open", url=url, codec_endpoint=codec["Endpoint"], texts=len(expected.user_texts))
    with WebDriver(args.chromedriver, args.chromium) as driver:
        driver.open(url)
        shown = wait_for(
            driver, INPUT_TEXT, lambda t: f'"user_id": "{expected.user_id}"' in t, args.timeout
        )
        problems = input_problems(shown, str(driver.script(PAGE_TEXT)), expected)
        driver.screenshot(args.out)
        log.info("ui.input_screenshot", path=str(args.out))
        if problems:
            raise CheckFailed(
                "; ".join(problems) + f" (see {args.out}; is the codec server up and the UI "
                "opened at its allowed origin? `selfimprint dev logs codec`)"
            )
        check_redaction(driver, f"{ui}/namespaces/{settings.temporal_namespace}", expected, args)
    log.info(
        "ui.decoded",
        workflow_id=expected.workflow_id,
        tenant_id=expected.tenant_id,
        user_id=expected.user_id,
        user_texts=len(expected.user_texts),
        events_checked=list(expected.text_events[:EVENTS_CHECKED]),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help="PNG to write")
    parser.add_argument("--workflow-id", help="default: the newest UserLifecycleWorkflow")
    parser.add_argument("--ui-url", help="default: the dev UI, http://<bind_host>:<ui port>")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--chromedriver", default=CHROMEDRIVER)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per wait")
    args = parser.parse_args()
    args.out = args.out.resolve()
    if args.out.is_relative_to(REPO_ROOT):
        parser.error(f"{args.out} is inside the repository: screenshots are not committed")
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    try:
        run(args, settings)
    except BrowserError as exc:
        log.error("ui.check_failed", reason=str(exc))
        sys.exit(1)


if __name__ == "__main__":
    main()
