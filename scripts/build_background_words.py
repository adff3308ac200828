"""Write the background vocabulary of forget-by-meaning (issue 37,
`selfimprint/domain/data/background_words.txt`): every word that can carry a topic
(`forget_meaning.meaning_words`) in the labelled chat messages this project wrote for extraction
(tests/data/extraction/messages.jsonl, the first six persona writers and the supplement), EN and
RU. A word's hubness is its mean cosine to its nearest words here; the forget pairs
(tests/data/forget/) are not read, so the background is not fitted to what scores the rule.

    .venv/bin/python scripts/build_background_words.py
"""

from __future__ import annotations

import json
from pathlib import Path

from selfimprint.domain.forget_meaning import meaning_words

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "extraction"
SOURCES = (
    DATA / "messages.jsonl",
    *(DATA / "personas" / f"{p}.jsonl" for p in (
        "p01-maya", "p02-artyom", "p03-dev", "p04-galina", "p05-luis", "p06-kseniya",
    )),
    *sorted((DATA / "supplement").glob("*.jsonl")),
)  # fmt: skip
OUT = ROOT / "selfimprint" / "domain" / "data" / "background_words.txt"


def main() -> int:
    words: set[str] = set()
    for path in SOURCES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                words.update(meaning_words(json.loads(line)["text"]))
    OUT.write_text("\n".join(sorted(words)) + "\n", encoding="utf-8")
    print(f"wrote {len(words)} words to {OUT}")  # noqa: T201 - a script's report
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
