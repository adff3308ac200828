"""`selfimprint demo`: the main job on the local stack, end to end through the public API.

Issues a tenant key, creates a user, sends a scripted three-week conversation (English and
Russian), waits until the lifecycle workflow has extracted every message, and prints the typed
memories, the links between them, the tensions log and the context the assistant would get for
two questions.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message
from selfimprint.domain.sleep_policy import Plan
from selfimprint.domain.users import UserProfile, UserScope

CONVERSATION = Path(__file__).with_name("data") / "demo_conversation.json"
LINKS = ("caused_by", "followed_by", "contradicts")
QUESTIONS = ("How did the Globex interview go?", "Как прошло собеседование?")


async def run_demo(settings: Settings, out: Callable[[str], None], timeout_s: float) -> None:
    driver = open_driver(settings)
    try:
        await Neo4jGraphStore(driver, settings.neo4j_database).migrate()
        issued = await Neo4jAccounts(driver, settings.neo4j_database).issue_key("demo", "Demo")
        logs = MessageLogs(driver, settings.neo4j_database)
        user = f"demo-{uuid.uuid4().hex[:6]}"
        raw = json.loads(CONVERSATION.read_text())
        messages = [Message.model_validate(m) for m in raw["messages"]]
        async with SelfImprintClient(settings.api_url, issued.api_key, timeout_s=120) as si:
            await si.put_user(user, UserProfile(plan=Plan.PAID, time_zone="Europe/Berlin"))
            accepted = await si.post_messages(user, messages)
            out(f"user {user}: {accepted.accepted} messages accepted (202), extracting ...")
            log = logs.for_user(UserScope("demo", user))
            started = time.monotonic()
            while await log.count_in_state(ExtractionState.PENDING):
                if time.monotonic() - started > timeout_s:
                    out("extraction is still running; see the Temporal UI for the workflow")
                    break
                await asyncio.sleep(2)
            out(f"extracted in {time.monotonic() - started:.0f}s. Memories:")
            memories = await si.memories(user, limit=100)
            for memory in memories:
                kind = memory["type"] + (f", {memory['valence']}" if memory.get("valence") else "")
                out(f"  [{kind}] {memory['content']}  <- {', '.join(memory['sources'])}")
            out("\nLinks (why one memory follows from another):")
            for memory in memories:
                for edge in (await si.memory(user, memory["id"]))["edges"]:
                    if edge["direction"] == "out" and edge["type"] in LINKS:
                        link = f"--{edge['type']}--> {edge['other_content']}"
                        out(f"  {memory['content']}\n    {link}")
            portrait = await si.portrait(user)
            if "# Tensions" in portrait:
                out("\n" + portrait.split("# Tensions", 1)[1].strip())  # its "## Tensions"
            for question in QUESTIONS:
                answer = await si.context(user, question)
                out(f"\ncontext for {question!r} ({answer.tokens} tokens, {answer.language}):")
                out(answer.context or "(empty)")
            out(f"\nTemporal UI: workflow user-demo-{user}; API key for more: {issued.api_key}")
    finally:
        await driver.close()
