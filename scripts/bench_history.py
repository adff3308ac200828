"""How much Temporal history one ingested message costs: one user's lifecycle ingests short chat
messages with structured extraction on a throw-away local stack, then its history (every run,
across continue-as-new) is measured in events and serialized bytes per message.

    .venv/bin/python scripts/bench_history.py [--messages 200] [--label after] [--no-write]

Messages are generated (chat-like sentences from templates, seeded) and posted one a request,
as a chat client sends them. Prints the totals and the bytes by event kind, and puts a row
under `--label` in the `## Workflow history per ingested message` section of BENCHMARKS.md
(rows of other labels are kept, so a run on the old tree and one on the new sit side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shlex
import shutil
import sys
import tempfile
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
from bench_api import issue_key, say, wait_extracted
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.report import BENCHMARKS, replace_section
from selfimprint.domain.users import UserScope
from workflows.ids import lifecycle_workflow_id

SECTION = "## Workflow history per ingested message"
TARGET_BYTES = 4 * 1024  # issue 35: at most 4 KB of history per ingested message
USER = "history-bench"

NAMES = ["Anna", "Marco", "Priya", "Tom", "Lena", "Kenji", "Sofia", "Omar"]
RELATIONS = ["sister", "brother", "mom", "dad", "best friend", "manager", "neighbour", "cousin"]
PLACES = ["Lisbon", "the lake", "Kyoto", "my parents' place", "the gym", "Berlin", "the coast"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["March", "April", "May", "June", "September", "October"]
FEELINGS = ["anxious", "really happy", "tired", "excited", "stressed", "a bit lonely", "proud"]
THINGS = ["the move", "my exam", "the new project", "the wedding", "my health", "money"]
HOBBIES = ["running", "baking bread", "playing guitar", "painting", "chess", "swimming"]
FOODS = ["pasta", "ramen", "curry", "tacos", "dumplings", "salad"]
TEMPLATES = [
    "I started a new job at {company} last {day}.",
    "My {relation} {name} is coming to visit on {day}.",
    "I feel {feeling} about {thing}.",
    "We went to {place} with {name} yesterday, it was lovely.",
    "I need to call the dentist before {day}.",
    "{name} and I had an argument about {thing} again.",
    "I love {hobby} on weekends.",
    "The deadline for the report moved to {month} {date}.",
    "I'm thinking about quitting {hobby}, I never have time.",
    "Had {food} for dinner with my {relation}.",
    "I've been sleeping badly since {day}.",
    "My {relation} just got a dog, it's so cute.",
    "I'm flying to {place} on {month} {date}.",
    "Honestly I'm {feeling} today.",
    "Can you remind me that {name} prefers tea over coffee?",
]
COMPANIES = ["Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Acme"]


def chat_messages(count: int, rng: random.Random) -> list[str]:
    """Short first-person chat messages about a life (people, plans, feelings, habits)."""
    return [
        rng.choice(TEMPLATES).format(
            company=rng.choice(COMPANIES),
            day=rng.choice(DAYS),
            relation=rng.choice(RELATIONS),
            name=rng.choice(NAMES),
            feeling=rng.choice(FEELINGS),
            thing=rng.choice(THINGS),
            place=rng.choice(PLACES),
            hobby=rng.choice(HOBBIES),
            month=rng.choice(MONTHS),
            date=rng.randint(1, 28),
            food=rng.choice(FOODS),
        )
        for _ in range(count)
    ]


@dataclass
class HistoryFigures:
    runs: int = 0
    events: int = 0
    bytes: int = 0
    batches: int = 0  # extraction batches applied
    by_kind: Counter[str] = field(default_factory=Counter)  # bytes by event kind


def kind_of(event: HistoryEvent) -> str:
    """An event's kind, activity events named by their activity type."""
    kind = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_").lower()
    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        return f"{kind} {event.activity_task_scheduled_event_attributes.activity_type.name}"
    return kind


async def measure_history(settings: Settings, tenant: str) -> HistoryFigures:
    client = await connect(settings)
    workflow_id = lifecycle_workflow_id(tenant, USER)
    figures = HistoryFigures()
    async for execution in client.list_workflows(f"WorkflowId = '{workflow_id}'"):
        figures.runs += 1
        handle = client.get_workflow_handle(workflow_id, run_id=execution.run_id)
        scheduled: dict[int, str] = {}
        async for event in handle.fetch_history_events():
            # Serialized event bytes, the measure behind Temporal's history size limits;
            # payloads as stored, i.e. encrypted by the payload codec.
            size = event.ByteSize()
            kind = kind_of(event)
            figures.events += 1
            figures.bytes += size
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                scheduled[event.event_id] = kind.split(" ", 1)[1]
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
                # A result is charged to its activity: that is where the payloads are.
                ref = event.activity_task_completed_event_attributes.scheduled_event_id
                kind = f"{kind} {scheduled[ref]}"
                figures.batches += scheduled[ref].startswith("ingestion.apply")
            figures.by_kind[kind] += size
    return figures


async def post_messages(http: httpx.AsyncClient, texts: list[str]) -> None:
    for i, text in enumerate(texts):
        sent_at = datetime.now(UTC).isoformat()
        message = {"id": f"m{i}", "role": "user", "text": text, "sent_at": sent_at}
        answer = await http.post(f"/v1/users/{USER}/messages", json={"messages": [message]})
        answer.raise_for_status()


async def measure(settings: Settings, messages: int) -> HistoryFigures:
    tenant, key = await issue_key(settings)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=settings.api_url, headers=headers, timeout=120) as http:
        (await http.put(f"/v1/users/{USER}", json={})).raise_for_status()
        say(f"posting {messages} messages ...")
        await post_messages(http, chat_messages(messages, random.Random(35)))
    say("waiting for extraction ...")
    await wait_extracted(settings, UserScope(tenant, USER), messages)
    return await measure_history(settings, tenant)


def run(messages: int) -> HistoryFigures:
    data_dir = Path(tempfile.mkdtemp(prefix="si-bench-history-"))
    settings = Settings(data_dir=data_dir, extraction="structured", **isolated_port_settings())  # type: ignore[arg-type]
    say(f"starting an isolated stack in {data_dir} ...")
    try:
        stack.up(settings)
        return asyncio.run(measure(settings, messages))
    finally:
        stack.down(settings)
        shutil.rmtree(data_dir, ignore_errors=True)


def row(label: str, messages: int, f: HistoryFigures) -> str:
    per = f.bytes / messages
    verdict = "meets" if per <= TARGET_BYTES else "misses"
    largest = ", ".join(
        f"{kind.replace('_', ' ')} {size / messages:,.0f} B"
        for kind, size in f.by_kind.most_common(2)
    )
    return (
        f"| {label} | {f.runs} | {f.batches} | {f.events:,} ({f.events / messages:.1f}) "
        f"| {f.bytes / 1024:,.0f} KiB | {per / 1024:.2f} KiB ({verdict} the 4 KiB target) "
        f"| {largest} |"
    )


def section(label: str, messages: int, f: HistoryFigures, command: str) -> str:
    """The section with this run's row, keeping the rows of other labels already there."""
    text = BENCHMARKS.read_text() if BENCHMARKS.exists() else ""
    start = text.find(SECTION + "\n")
    old = text[start : text.find("\n## ", start + 1)] if start >= 0 else ""
    kept = [
        line
        for line in old.splitlines()
        if line.startswith("| ") and not line.startswith(("| label", f"| {label} |"))
    ]
    intro = (
        f"Command: `{command}` (run once on each tree, with its `--label`). One throw-away local "
        f"stack; one user posts {messages} generated chat messages (one a request) and the "
        "lifecycle extracts them with `extraction=structured`. Its history is then measured "
        "over every run (continue-as-new included): events and serialized bytes, payloads as "
        "stored (encrypted by the payload codec). Issue 35's target: at most 4 KiB a message."
    )
    return "\n".join(
        [
            SECTION,
            "",
            textwrap.fill(intro, width=100, break_long_words=False, break_on_hyphens=False),
            "",
            "| label | runs | batches | events (per message) | history | per message "
            "| largest kinds, per message |",
            "|---|---|---|---|---|---|---|",
            *kept,
            row(label, messages, f),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--label", default="this tree")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    figures = run(args.messages)
    lines = [row(args.label, args.messages, figures)]
    for kind, size in figures.by_kind.most_common(12):
        lines.append(f"  {kind:60s} {size / 1024:9.1f} KiB  {size / args.messages:8.0f} B/message")
    sys.stdout.write("\n".join(lines) + "\n")
    if not args.no_write:
        command = "scripts/bench_history.py " + shlex.join(sys.argv[1:])
        replace_section(section(args.label, args.messages, figures, f".venv/bin/python {command}"))


if __name__ == "__main__":
    main()
