"""How well the grounding guard (selfimprint.domain.grounding) keeps what the user's messages
support and drops what they do not, on tests/data/grounding/candidates.jsonl (EN and RU,
written for this project).

    .venv/bin/python scripts/eval_grounding.py [--no-write]

Odd ids tune `min_support` (best balanced accuracy: grounded kept plus ungrounded dropped),
even ids are held out. Prints Markdown and replaces the
`## Grounding guard` section of BENCHMARKS.md. No model: the guard is lexical.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from selfimprint.devstack.report import replace_section
from selfimprint.domain.grounding import DEFAULT_GROUNDING, GroundingConfig, invented, support

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "grounding" / "candidates.jsonl"
SUPPORTS = [round(0.05 * i, 2) for i in range(1, 20)]  # 0.05 .. 0.95


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    kind: str
    grounded: bool
    messages: tuple[str, ...]
    content: str

    @property
    def held_out(self) -> bool:
        return int(self.id.rsplit("-", 1)[1]) % 2 == 0


def load_cases(path: Path = DATA) -> list[Case]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [Case(**(row | {"messages": tuple(row["messages"])})) for row in rows]


@dataclass(frozen=True)
class Score:
    grounded: int
    kept: int  # grounded candidates kept
    ungrounded: int
    dropped: int  # ungrounded candidates dropped

    @property
    def keep_rate(self) -> float:
        return self.kept / self.grounded if self.grounded else 1.0

    @property
    def drop_rate(self) -> float:
        return self.dropped / self.ungrounded if self.ungrounded else 1.0

    @property
    def precision(self) -> float:
        """Of what the guard keeps, the share that is grounded."""
        stored = self.kept + (self.ungrounded - self.dropped)
        return self.kept / stored if stored else 1.0


def keeps(case: Case, config: GroundingConfig) -> bool:
    """The guard's call on a candidate that cites its messages (domain.grounding.ground)."""
    return (
        not invented(case.content, case.messages, config)
        and support(case.content, case.messages, config) >= config.min_support
    )


def score(cases: Sequence[Case], config: GroundingConfig) -> Score:
    keeps_ = [keeps(c, config) for c in cases]
    return Score(
        grounded=sum(c.grounded for c in cases),
        kept=sum(k and c.grounded for c, k in zip(cases, keeps_, strict=True)),
        ungrounded=sum(not c.grounded for c in cases),
        dropped=sum(not k and not c.grounded for c, k in zip(cases, keeps_, strict=True)),
    )


def tune(cases: Sequence[Case]) -> GroundingConfig:
    """The floor with the best balanced accuracy (grounded kept + ungrounded dropped, each as a
    share); ties go to the higher floor (dropping an invention matters more)."""

    def balanced(floor: float) -> tuple[float, float]:
        s = score(cases, GroundingConfig(min_support=floor))
        return (s.keep_rate + s.drop_rate, floor)

    return GroundingConfig(min_support=max(SUPPORTS, key=balanced))


def table(rows: Sequence[tuple[str, str, Score]]) -> list[str]:
    out = [
        "| cases | rule | grounded kept | ungrounded dropped | precision of what is kept |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for cases, rule, s in rows:
        out.append(
            f"| {cases} | {rule} | {s.kept} / {s.grounded} ({s.keep_rate:.3f}) | {s.dropped} / "
            f"{s.ungrounded} ({s.drop_rate:.3f}) | {s.precision:.3f} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md")
    args = parser.parse_args()
    cases = load_cases()
    tuned = tune([c for c in cases if not c.held_out])
    rules = [("shipped", DEFAULT_GROUNDING), ("tuned", tuned)]
    rows: list[tuple[str, str, Score]] = []
    for name, config in rules:
        rule = f"min_support {config.min_support:.2f} ({name})"
        rows.append(("held out", rule, score([c for c in cases if c.held_out], config)))
        for lang in sorted({c.lang for c in cases}):
            rows.append((f"all {lang}", rule, score([c for c in cases if c.lang == lang], config)))
    wrong = Counter(
        (c.kind, "kept" if not c.grounded else "dropped")
        for c in cases
        if keeps(c, DEFAULT_GROUNDING) != c.grounded
    )
    langs = ", ".join(f"{n} {g}" for g, n in sorted(Counter(c.lang for c in cases).items()))
    lines = [
        "## Grounding guard",
        "",
        f"`.venv/bin/python scripts/eval_grounding.py`: {len(cases)} labelled candidates "
        f"({langs}; {sum(c.grounded for c in cases)} grounded), written for this project: "
        "`tests/data/grounding/candidates.jsonl`. The floor is tuned on the odd ids for the best "
        "balanced accuracy (grounded kept + ungrounded dropped); the even ids are held out. "
        "Every candidate here cites its messages; one that cites none is always dropped.",
        "",
        *table(rows),
        "",
        "Shipped floor, all cases, wrong calls by kind: "
        + (", ".join(f"{k} {what} {n}" for (k, what), n in sorted(wrong.items())) or "none")
        + ".",
    ]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if not args.no_write:
        replace_section(text)


if __name__ == "__main__":
    main()
