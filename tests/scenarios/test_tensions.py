"""Tensions on the record (epistemic-memory article): a change of job said days later is an
unresolved tension in the portrait and the tensions log until the user resolves it through the
API; and the user can delete one memory, which then is gone from every view."""

from __future__ import annotations

from typing import Any

from activities.ingestion import ExtractionMode
from selfimprint.config import Settings
from tests.scenarios.support import Life, a_life

JOB = "I work as an engineer at Initech, mostly on the billing system."
QUIT = "I quit Initech, I am not working there anymore."


def _by_content(memories: list[dict[str, Any]], text: str) -> dict[str, Any]:
    found = [m for m in memories if m["content"] == text]
    assert found, (text, [(m["type"], m["content"]) for m in memories])
    return found[0]


def _tensions_log(portrait: str) -> str:
    assert "# Tensions" in portrait, portrait
    return portrait.split("# Tensions", 1)[1]


async def _tensions(life: Life, status: str | None = None) -> list[dict[str, Any]]:
    params = {"status": status} if status else {}
    answer = await life.http.get(f"/v1/users/{life.user_id}/tensions", params=params)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["tensions"]
    return found


async def test_a_contradiction_stays_unresolved_until_the_user_resolves_it(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (the tension write of a contradiction), the portrait has no tension and the
    log is empty; (resolution writing nothing) the tension stays unresolved."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(JOB)
        job = _by_content(await life.memories(), JOB)
        await life.days_pass(3)
        await life.say(QUIT)
        quit_ = _by_content(await life.memories(), QUIT)

        # Unresolved by default, in the portrait and the log, with both sides' words.
        log = _tensions_log(await life.portrait())
        assert "status:unresolved" in log and JOB in log and QUIT in log, log
        (open_,) = await _tensions(life, "unresolved")
        assert (open_["a"], open_["b"]) == (
            {"id": quit_["id"], "content": QUIT, "faded": False},
            {"id": job["id"], "content": JOB, "faded": False},
        )
        assert open_["resolution"] is None
        await life.days_pass(2)  # sleeps pass: nothing resolves it for the user
        assert [t["id"] for t in await _tensions(life, "unresolved")] == [open_["id"]]

        # The user keeps the newer statement: the old job is marked wrong.
        path = f"/v1/users/{life.user_id}/tensions/{open_['id']}/resolve"
        body = {"keep": "a", "note": "I left in spring."}
        resolved = await life.http.post(path, json=body)
        assert resolved.status_code == 200, resolved.text
        assert resolved.json()["status"] == "resolved"
        assert resolved.json()["resolution"]["keep"] == "a"
        again = await life.http.post(path, json=body)  # a retry: the same answer
        assert (again.status_code, again.json()) == (200, resolved.json())
        other = await life.http.post(path, json={"keep": "both"})
        assert other.status_code == 409, other.text
        assert other.json()["error"]["code"] == "tension_already_resolved"

        assert await _tensions(life, "unresolved") == []
        assert [t["id"] for t in await _tensions(life, "resolved")] == [open_["id"]]
        log = _tensions_log(await life.portrait())
        assert "status:resolved" in log and "status:unresolved" not in log, log
        assert JOB in log and "note: I left in spring." in log, log
        assert (await life.memory(job["id"]))["memory"]["status"] == "refuted"
        used = [m["content"] for m in (await life.context("Where do I work?"))["memories"]]
        assert JOB not in used, used


async def test_a_deleted_memory_is_gone_from_memories_context_and_portrait(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Rule removed (delete_memory deleting nothing), the memory is still listed, in the context
    and in the portrait."""
    async with a_life(stack_settings, tenant_key, extraction=ExtractionMode.STRUCTURED) as life:
        await life.say(JOB)
        await life.days_pass(1)
        await life.say(QUIT)
        quit_ = _by_content(await life.memories(), QUIT)
        used = [
            m["content"] for m in (await life.context("Do I still work at Initech?"))["memories"]
        ]
        assert QUIT in used, used

        path = f"/v1/users/{life.user_id}/memories/{quit_['id']}"
        deleted = await life.http.delete(path)
        assert deleted.status_code == 204, deleted.text
        assert (await life.http.delete(path)).status_code == 204  # a retry

        assert QUIT not in [m["content"] for m in await life.memories()]
        gone = await life.http.get(path)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "unknown_memory"
        used = [
            m["content"] for m in (await life.context("Do I still work at Initech?"))["memories"]
        ]
        assert QUIT not in used, used
        portrait = await life.portrait()
        assert QUIT not in portrait, portrait
        assert await _tensions(life) == []  # the tension named it: it went with it
        # The next days (sleep, compaction, a reconcile of the message log) do not bring it back.
        await life.days_pass(2)
        assert QUIT not in [m["content"] for m in await life.memories()]
