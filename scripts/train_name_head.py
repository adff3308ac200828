"""Fit the name head (issue 34): which words of a message name a person, read from the shipped
type reader's token states. Writes selfimprint/adapters/data/name_head.npz.

    .venv/bin/python scripts/train_name_head.py [--hold p11-siobhan,p13-kofi --out /tmp/h.npz]

Data: the train personas. A whitespace chunk is a name when one of its words is a part of a
labelled person's name: the same word in English ("Aoife's" is Aoife), the name's stem with an
ending of up to three letters in Russian ("Мартой" is Марта). Dev and test personas are never
read. `--hold` leaves train personas out, to score the head on writers it never saw
(`scripts/eval_extraction.py --personas --writers ... --name-head PATH`). Run it again after
`scripts/train_type_reader.py`: the head reads that reader's states, and a head fitted on
another reader is not loaded (adapters.name_head).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load_personas  # noqa: E402

from selfimprint.adapters.e5_encoder import shipped_weights  # noqa: E402
from selfimprint.adapters.name_head import (  # noqa: E402
    NAME_FEATURES,
    NAME_FILE,
    ChunkedTokens,
    chunk_features,
    chunked_tokens,
    file_sha256,
    fit_name_head,
    save_name_head,
)
from selfimprint.adapters.type_reader import load_reader, shipped_reader_path  # noqa: E402

L2 = 100.0
STEPS = 1000
_CYRILLIC = re.compile(r"[а-яё]")
_RU_ENDINGS = "аяьйоеи"


def _is_part(word: str, part: str) -> bool:
    if word == part:
        return True
    if len(part) < 3 or not _CYRILLIC.match(part):
        return False
    stem = part[:-1] if part[-1] in _RU_ENDINGS else part
    return len(stem) >= 3 and word.startswith(stem) and len(word) - len(stem) <= 3


def chunk_labels(row: Labelled, chunked: ChunkedTokens) -> list[int]:
    parts = [part.casefold() for p in row.people for part in p.name.split()]
    return [
        int(any(_is_part(word, part) for word in words for part in parts))
        for words, _, _, _ in chunked.chunks
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hold", default="", help="train personas to leave out (comma-separated)")
    parser.add_argument("--out", type=Path, default=shipped_reader_path().with_name(NAME_FILE))
    args = parser.parse_args()
    hold = frozenset(p for p in args.hold.split(",") if p)
    reader_path = shipped_reader_path()
    reader = load_reader(reader_path, shipped_weights())
    weights = shipped_weights()
    rows = [r for r in load_personas() if r.split == "train" and r.persona not in hold]
    started = time.perf_counter()
    features, labels = [], []
    for row in rows:
        chunked = chunked_tokens(weights, row.text)
        if not chunked.chunks:
            continue
        states, _ = reader.token_states([chunked.ids])
        features.append(chunk_features(states[0], chunked))
        labels += chunk_labels(row, chunked)
    personas = sorted({r.persona for r in rows})
    head = fit_name_head(
        np.concatenate(features),
        labels,
        l2=L2,
        steps=STEPS,
        reader_sha256=file_sha256(reader_path),
        training={
            "personas": personas,
            "l2": L2,
            "steps": STEPS,
            "chunks": len(labels),
            "features": NAME_FEATURES,
        },
    )
    save_name_head(args.out, head)
    print(  # noqa: T201 - a script's report
        f"{len(rows)} messages of {len(personas)} personas, {len(labels)} chunks "
        f"({sum(labels)} names), {time.perf_counter() - started:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
