"""Whether a later memory supports, contradicts or says nothing about a hypothesis (spec §3.5.2
evidence; the epistemic-memory article's component 7, silent consistency: behaviour in later
sessions consistent with a belief the user never stated is observed evidence for it).

Deterministic, on CPU (no model). Where a model is configured it re-judges the pairs
`is_model_candidate` lets through (a looser net than `is_relevant`), and its verdict replaces
this rule's for those pairs (`sleep_planning.later_evidence`). Two steps:

1. **Relevance**: the memory is about the hypothesis when the two share a content stem
   (`selfimprint.domain.terms`, EN / RU) and their embeddings' cosine reaches `min_cosine`, or
   the cosine alone reaches `strong_cosine`. Without comparable embeddings (another model, none
   stored), `min_shared_stems_alone` shared stems decide. A question or a hedged remark ("maybe",
   "может") is never evidence, nor a sentence whose subject is a relative and not the speaker
   ("My brother got a dog").
2. **Polarity**: each text is negative when its negations are odd (idioms that negate nothing
   left out, as the restatement test and the structured cues read them), or it says a state
   ended ("anymore", "quit", "больше не": the structured cues' change markers), or an aversion
   ("hate", "avoid", "терпеть не могу"). The same polarity supports; the opposite contradicts.

Ingestion's contradiction edges come first: a memory that contradicts one of the hypothesis's
evidence memories contradicts the hypothesis, whatever its words.

The numbers are tuned by `scripts/eval_stance.py` on `tests/data/stance/pairs.jsonl` (EN and RU,
written for this project, with their e5 cosines recorded for the unit tests).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.structured.cues import cues, normalise
from selfimprint.domain.terms import read, stem

Cosine = Annotated[float, Field(ge=-1.0, le=1.0)]


class StanceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Project choice, tuned by scripts/eval_stance.py on tests/data/stance/ (e5-small, odd ids;
    # the highest floor of the best accuracy): with a shared content stem, this cosine makes a
    # memory relevant. e5 puts unrelated chat lines near 0.78, a hypothesis and its instance
    # near 0.85.
    min_cosine: Mapping[str, Cosine] = Field(
        default_factory=lambda: {"intfloat/multilingual-e5-small": 0.80}
    )
    # Project choice: another embedder (not tuned) needs a shared stem and this cosine.
    default_min_cosine: Cosine = 0.5
    # Project choice, tuned with min_cosine: no shared stem (a paraphrase) needs this cosine;
    # on the labelled set no pair needs the path, so the tuning keeps it strictest.
    strong_cosine: Mapping[str, Cosine] = Field(
        default_factory=lambda: {"intfloat/multilingual-e5-small": 0.98}
    )
    # Project choice: untuned embedders never pass on cosine alone.
    default_strong_cosine: Cosine = 1.0
    # Project choice: without comparable embeddings, this many shared content stems.
    min_shared_stems_alone: Annotated[int, Field(ge=1)] = 2
    # Project choice: pairs the model re-judges per sleep pass (issue 16): one prompt per
    # hypothesis on the local model's small context, bounded so a large graph costs the same.
    max_model_pairs: Annotated[int, Field(ge=1)] = 20

    def floors(self, embedding_model: str | None) -> tuple[float, float]:
        """(cosine with a shared stem, cosine alone) for the embedder."""

        def pick(table: Mapping[str, float], default: float) -> float:
            for prefix, floor in table.items():
                if embedding_model is not None and embedding_model.startswith(prefix):
                    return floor
            return default

        return (
            pick(self.min_cosine, self.default_min_cosine),
            pick(self.strong_cosine, self.default_strong_cosine),
        )


DEFAULT_STANCE: Final = StanceConfig()


class StanceVerdict(StrEnum):
    SUPPORTING = "supporting"
    CONTRADICTING = "contradicting"
    NEUTRAL = "neutral"


# The hypothesis's own subject ("The user ...", "Пользователь ...") is no shared content.
_SUBJECT_STEMS: Final = frozenset(stem(w) for w in ("user", "users", "пользователь"))
# An aversion reads as a negation ("I hate cooking" against "enjoys cooking"); the idioms with a
# negation inside ("can't stand") count once, as the aversion.
_AVERSION: Final = re.compile(
    r"\b(?:hate[sd]?|hating|dislike[sd]?|avoid(?:s|ed|ing)?|can'?t stand|cannot stand"
    r"|ненави\w*|избега\w*|терпеть не могу|не выношу)\b",
    re.IGNORECASE,
)
_NEGATED_AVERSION: Final = re.compile(
    r"\b(?:can'?t stand|cannot stand|терпеть не могу|не выношу)\b", re.IGNORECASE
)
_CYRILLIC: Final = re.compile(r"[а-яё]", re.IGNORECASE)
# The speaker as a subject (not "my", which also opens "my brother got a dog").
_FIRST_PERSON: Final = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|myself|we|us|я|меня|мне|мной|мы|нас|нам|себя|себе)\b",
    re.IGNORECASE,
)
# A relation word among the first words names the subject: someone else's doing.
_SUBJECT_WORDS: Final = 3


def _language(text: str) -> str:
    return "ru" if _CYRILLIC.search(text) else "en"


def is_negative(text: str) -> bool:
    """The text denies, ends or dislikes what it names."""
    clean = normalise(text)
    language = cues(_language(clean))
    negations = read(clean).negations
    negations -= len(language.not_negations.findall(clean))
    negations -= len(_NEGATED_AVERSION.findall(clean))
    aversions = len(_AVERSION.findall(clean))
    return bool(language.change_strong.search(clean)) or (negations + aversions) % 2 == 1


def is_tentative(text: str) -> bool:
    """A question or a hedge: not evidence of anything."""
    clean = normalise(text)
    return read(clean).asks or bool(cues(_language(clean)).hedge.search(clean))


def is_about_someone_else(text: str) -> bool:
    """ "My brother got a dog", "Дочь играет на пианино": a relative is the subject and the
    speaker is not in the sentence, so it says nothing of the user's own habits."""
    clean = normalise(text)
    opening = " ".join(clean.split()[:_SUBJECT_WORDS])
    relation = cues(_language(clean)).relation_words.search(opening)
    return relation is not None and not _FIRST_PERSON.search(clean)


def shared_stems(memory: str, hypothesis: str) -> int:
    return len((read(memory).stems & read(hypothesis).stems) - _SUBJECT_STEMS)


def is_relevant(
    memory: str,
    hypothesis: str,
    cosine: float | None,
    *,
    embedding_model: str | None,
    config: StanceConfig = DEFAULT_STANCE,
) -> bool:
    shared = shared_stems(memory, hypothesis)
    if cosine is None:
        return shared >= config.min_shared_stems_alone
    with_stem, alone = config.floors(embedding_model)
    return (shared >= 1 and cosine >= with_stem) or cosine >= alone


def is_model_candidate(
    memory: str,
    hypothesis: str,
    cosine: float | None,
    *,
    embedding_model: str | None,
    config: StanceConfig = DEFAULT_STANCE,
) -> bool:
    """Worth the model's reading: relevant by the rule, or one shared content stem (what the
    rule needs two of without embeddings, or a close cosine with). Questions, hedges and other
    people's doings stay out: they are never evidence, whoever reads them."""
    if is_tentative(memory) or is_about_someone_else(memory):
        return False
    return shared_stems(memory, hypothesis) >= 1 or is_relevant(
        memory, hypothesis, cosine, embedding_model=embedding_model, config=config
    )


@dataclass(frozen=True)
class StanceInput:
    """One later memory against one hypothesis."""

    memory: str
    hypothesis: str
    cosine: float | None  # None: no embeddings of the same model to compare
    embedding_model: str | None = None
    contradicts_evidence: bool = False  # ingestion linked it by `contradicts` to its evidence


def stance(item: StanceInput, config: StanceConfig = DEFAULT_STANCE) -> StanceVerdict:
    """Supporting, contradicting or neutral (see the module's docstring for the rule)."""
    if item.contradicts_evidence:
        return StanceVerdict.CONTRADICTING
    if is_tentative(item.memory) or is_about_someone_else(item.memory):
        return StanceVerdict.NEUTRAL
    if not is_relevant(
        item.memory,
        item.hypothesis,
        item.cosine,
        embedding_model=item.embedding_model,
        config=config,
    ):
        return StanceVerdict.NEUTRAL
    if is_negative(item.memory) == is_negative(item.hypothesis):
        return StanceVerdict.SUPPORTING
    return StanceVerdict.CONTRADICTING
