"""The benchmark's recorded-answer LLM stand-in (scripts/llm_replay.py): what it records and how
it replays a recording for other batches."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.scripts import load_script

replay = load_script("llm_replay")


def prompt(*ids: str) -> dict[str, Any]:
    lines = [f"[{i}] 2026-03-01 10:00 UTC user: text of {i}" for i in ids]
    user = {"role": "user", "content": "\n".join(lines)}
    return {"messages": [{"role": "system", "content": "x"}, user]}


def candidate(ref: str, *sources: str) -> dict[str, Any]:
    return {"ref": ref, "content": f"memory {ref}", "source_message_ids": list(sources)}


def test_message_ids_come_from_the_prompt_lines() -> None:
    assert replay.message_ids(prompt("m0", "m1")) == ["m0", "m1"]


def test_a_recorded_batch_replays_split_by_message_with_refs_and_ids_rewritten() -> None:
    recordings = replay.Recordings()
    answer = {
        "candidates": [candidate("n1", "m0"), candidate("n2", "m1", "m0"), candidate("n3")],
        "edges": [{"source_ref": "n2", "target_ref": "n1", "type": "caused_by"}],
    }
    recordings.record(["m0", "m1", "m2"], answer)
    # m1 alone, in another batch: its own candidate; its edge to m0's has no end here.
    alone = recordings.replay(["m1"])
    assert [c["content"] for c in alone["candidates"]] == ["memory n2"]
    assert alone["candidates"][0]["ref"] == "n1"
    assert alone["edges"] == []
    # m3 and m4 were never recorded: they replay m0 and m1 (3 recorded ids, j mod 3).
    later = recordings.replay(["m3", "m4"])
    assert [c["content"] for c in later["candidates"]] == ["memory n1", "memory n3", "memory n2"]
    assert later["candidates"][0]["source_message_ids"] == ["m3"]
    assert [c["ref"] for c in later["candidates"]] == ["n1", "n2", "n3"]
    assert later["edges"] == [{"source_ref": "n3", "target_ref": "n1", "type": "caused_by"}]
    assert recordings.misses == 0
    assert recordings.describe() == "1 of 1 answers usable, 3 memories from 3 messages; 0 misses"


def test_an_unknown_id_shape_is_a_counted_miss() -> None:
    recordings = replay.Recordings()
    recordings.record(["m0"], {"candidates": [candidate("n1", "m0")], "edges": []})
    assert recordings.replay(["other"]) == {"candidates": [], "edges": []}
    assert recordings.misses == 1


def test_a_malformed_answer_records_nothing() -> None:
    recordings = replay.Recordings()
    recordings.record(["m0"], {"candidates": [candidate("n1", "m0")], "edges": []})
    with pytest.raises(KeyError):
        recordings.record(["m0", "m1"], {"candidates": [{"ref": "n1"}], "edges": []})
    assert recordings.answers == 1
    assert [c["content"] for c in recordings.replay(["m0"])["candidates"]] == ["memory n1"]
