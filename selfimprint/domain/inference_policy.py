"""Which hypotheses the sleep phase may form at all, and which need a higher bar (spec §4.1, §4.2).

`classify(text)` looks at a candidate hypothesis, in English or Russian, and says whether it falls
into a category the system never infers, a category that needs more evidence and a longer timeout,
or neither. The lexical classifier decides on its own; an optional semantic second opinion (for
example cosine similarities between the hypothesis and category descriptions) can only make a
decision stricter, never looser.

Design choices, because a miss here is the expensive error (spec §4.1):

* the text is normalised before matching (NFKC, invisible characters and stray combining marks
  dropped, casefold, ё→е), and look-alike Latin/Cyrillic letters are folded: a word takes the
  script of its unambiguous letters, and a word made only of look-alikes is read both ways. So
  "ДЕПРЕССИЯ", "депрессиeй" with a Latin "e", "xpaм" in Latin letters or a zero-width space do
  not slip through;
* every lexicon whose script occurs in the text is applied, so mixed-language text is covered;
* negation is ignored on purpose: "the user is not religious" is still a claim about religion;
* the classifier judges the hypothesis text only. The §4.1 exception "unless the user has stated
  it directly" concerns facts the user reported, which are not hypotheses and do not pass here.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Final, Protocol

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.hypotheses import DEFAULT_POLICY, HypothesisPolicy
from selfimprint.domain.inference_lexicon import (
    DEFAULT_LEXICON,
    Category,
    Language,
    Lexicon,
    term_regex,
)
from selfimprint.domain.language import detect_language

__all__ = [
    "Category",
    "EvidenceBar",
    "InferencePolicy",
    "InferencePolicyConfig",
    "Language",
    "LexiconHit",
    "PolicyClass",
    "PolicyDecision",
    "SemanticOpinion",
    "category_class",
    "classify",
    "evidence_bar",
    "normalise",
]


class PolicyClass(StrEnum):
    NEVER_INFER = "never_infer"
    HIGH_BAR = "high_bar"
    ALLOWED = "allowed"


# Strictness order: a decision may only move up this ladder.
_RANK: Final[Mapping[PolicyClass, int]] = {
    PolicyClass.ALLOWED: 0,
    PolicyClass.HIGH_BAR: 1,
    PolicyClass.NEVER_INFER: 2,
}

_NEVER_INFER: Final[frozenset[Category]] = frozenset(
    {
        Category.MEDICAL_DIAGNOSIS,
        Category.SEXUAL_ORIENTATION_GENDER_IDENTITY,
        Category.POLITICAL_VIEWS,
        Category.RELIGIOUS_BELIEFS,
        Category.FINANCIAL_POSITION,
        Category.HEALTH_STATUS,
        Category.IMMIGRATION_STATUS,
        Category.CRIMINAL_HISTORY,
        Category.ETHNIC_ORIGIN,
    }
)

_CATEGORY_ORDER: Final[Mapping[Category, int]] = {c: i for i, c in enumerate(Category)}

_SPEC_SECTION: Final[Mapping[Category, str]] = {
    **dict.fromkeys(_NEVER_INFER, "§4.1"),
    Category.ETHNIC_ORIGIN: "§4.1 rationale, GDPR Art. 9",
    Category.EMOTIONAL_STATE: "§4.2",
    Category.RELATIONSHIP: "§4.2",
    Category.LONG_TERM_GOAL: "§4.2",
}


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EvidenceBar(_Frozen):
    """What a hypothesis needs before it converts to an observed fact, and how long it may wait."""

    min_total_evidence: Annotated[int, Field(ge=1)]
    support_ratio: Annotated[float, Field(ge=1.0)]
    timeout: timedelta


class InferencePolicyConfig(_Frozen):
    # §4.1: health status is excluded "unless the deployment is explicitly medical". A medical
    # deployment moves it to the high bar; diagnoses stay excluded either way.
    medical_deployment: bool = False
    # Spec silent: the margin (domain.policy_references.semantic_scores: nearer to a labelled
    # statement of the category than to any of a less strict class, by this much) at which the
    # semantic second opinion escalates. Calibrated for policy_references.CALIBRATED_EMBEDDER by
    # scripts/calibrate_policy_semantic.py: the smallest that escalates no dev statement wrongly.
    semantic_never_infer_threshold: Annotated[float, Field(ge=-2.0, le=2.0)] = 0.035
    semantic_high_bar_threshold: Annotated[float, Field(ge=-2.0, le=2.0)] = 0.025


def evidence_bar(
    policy_class: PolicyClass, lifecycle: HypothesisPolicy = DEFAULT_POLICY
) -> EvidenceBar | None:
    """The bar a hypothesis of this class must clear; None where no hypothesis may exist.

    The numbers (§3.5.2 for the standard bar, §4.2 "more evidence, longer timeouts" for the
    high one) live in the hypothesis lifecycle's config, so there is one place to tune them.
    """
    if policy_class is PolicyClass.NEVER_INFER:
        return None
    high = policy_class is PolicyClass.HIGH_BAR
    return EvidenceBar(
        min_total_evidence=lifecycle.evidence_to_confirm(high),
        support_ratio=lifecycle.confirm_ratio,
        timeout=lifecycle.high_bar_timeout if high else lifecycle.timeout,
    )


def category_class(category: Category, config: InferencePolicyConfig) -> PolicyClass:
    if category is Category.HEALTH_STATUS and config.medical_deployment:
        return PolicyClass.HIGH_BAR
    return PolicyClass.NEVER_INFER if category in _NEVER_INFER else PolicyClass.HIGH_BAR


class LexiconHit(_Frozen):
    category: Category
    language: Language
    term: str
    matched: str
    start: int


class PolicyDecision(_Frozen):
    policy_class: PolicyClass
    category: Category | None
    reason: str
    # The text's language as everything else sees it (`language.detect_language`: "en", "ru",
    # "uk", ... or "und"). Informative only: each lexicon applies wherever its script occurs.
    language: str
    hits: tuple[LexiconHit, ...] = ()
    semantic_score: float | None = None

    @property
    def may_form_hypothesis(self) -> bool:
        return self.policy_class is not PolicyClass.NEVER_INFER

    @property
    def high_bar(self) -> bool:
        """Pass to `hypotheses.form_hypothesis(high_bar=...)`."""
        return self.policy_class is PolicyClass.HIGH_BAR


class SemanticOpinion(Protocol):
    """A second opinion: similarity of the text to each category, e.g. from an embedder.

    Any callable with this shape works; a plain mapping of precomputed scores is accepted too.
    """

    def __call__(self, text: str, /) -> Mapping[Category, float]: ...


# --- normalisation and script detection ----------------------------------------------------

# Letters that look alike in both scripts, keyed on their casefolded forms (upper-case look-alikes
# such as B/В or H/Н casefold to b/в and h/н).
_LATIN_TO_CYRILLIC: Final[Mapping[str, str]] = dict(
    zip("abcehkmoptxy", "авсенкмортху", strict=True)
)
_CYRILLIC_TO_LATIN: Final[Mapping[str, str]] = {
    **{cyr: lat for lat, cyr in _LATIN_TO_CYRILLIC.items()},
    "і": "i",
    "ј": "j",
    "ѕ": "s",
}
_TO_CYRILLIC = str.maketrans(dict(_LATIN_TO_CYRILLIC))
_TO_LATIN = str.maketrans(dict(_CYRILLIC_TO_LATIN))
_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u02bc\u00b4\u0060", "'"),
    }
)
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_latin(ch: str) -> bool:
    return ch.isalpha() and ch < "\u0250"


def _unambiguous_counts(text: str) -> tuple[int, int]:
    """Latin and Cyrillic letters that have no look-alike in the other script."""
    latin = sum(1 for ch in text if _is_latin(ch) and ch not in _LATIN_TO_CYRILLIC)
    cyrillic = sum(1 for ch in text if _is_cyrillic(ch) and ch not in _CYRILLIC_TO_LATIN)
    return latin, cyrillic


def _fold_homoglyphs(text: str, *, ambiguous_to_cyrillic: bool) -> str:
    """Write each word in one script: the one most of its unambiguous letters belong to.

    A word made only of look-alike letters ("paк", "ocd"... or "pak" typed to dodge "рак") has
    no answer on its own, so the caller asks for both readings and matches each lexicon against
    the reading in its own script.
    """

    def fold(match: re.Match[str]) -> str:
        word = match.group()
        latin, cyrillic = _unambiguous_counts(word)
        to_cyrillic = cyrillic > latin or (cyrillic == latin and ambiguous_to_cyrillic)
        return word.translate(_TO_CYRILLIC if to_cyrillic else _TO_LATIN)

    return _WORD.sub(fold, text)


def _base_normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    # Format characters (zero-width space, soft hyphen, bidi marks) and combining marks left
    # after composition (stress accents) would split words without changing what they say.
    text = "".join(ch for ch in text if unicodedata.category(ch) not in {"Cf", "Mn"})
    text = text.casefold().replace("ё", "е").translate(_PUNCTUATION)
    return _SPACES.sub(" ", text).strip()


def _script_views(text: str) -> dict[Language, str]:
    """The normalised text as read by each lexicon: look-alike-only words in that script."""
    base = _base_normalise(text)
    return {
        Language.EN: _fold_homoglyphs(base, ambiguous_to_cyrillic=False),
        Language.RU: _fold_homoglyphs(base, ambiguous_to_cyrillic=True),
    }


def normalise(text: str) -> str:
    """The text as the lexicons see it, with look-alike-only words in the dominant script."""
    base = _base_normalise(text)
    latin, cyrillic = _unambiguous_counts(base)
    return _fold_homoglyphs(base, ambiguous_to_cyrillic=cyrillic > latin)


# --- lexicon compilation --------------------------------------------------------------------


@dataclass(frozen=True)
class _CompiledCategory:
    language: Language
    category: Category
    terms: tuple[str, ...]
    pattern: re.Pattern[str]
    exceptions: re.Pattern[str] | None


def _alternation(terms: Sequence[str], *, named: bool) -> re.Pattern[str]:
    parts = []
    for index, term in enumerate(terms):
        body = term_regex(term)
        try:
            re.compile(body)
        except re.error as error:
            raise ValueError(f"lexicon term {term!r} is not a valid pattern: {error}") from error
        parts.append(f"(?P<t{index}>{body})" if named else f"(?:{body})")
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)")


def _compile(lexicon: Lexicon) -> tuple[_CompiledCategory, ...]:
    compiled = []
    for language, categories in lexicon.items():
        for category, entry in categories.items():
            if not entry.terms:
                continue
            compiled.append(
                _CompiledCategory(
                    language=language,
                    category=category,
                    terms=entry.terms,
                    pattern=_alternation(entry.terms, named=True),
                    exceptions=(
                        _alternation(entry.exceptions, named=False) if entry.exceptions else None
                    ),
                )
            )
    return tuple(compiled)


@lru_cache(maxsize=1)
def _default_compiled() -> tuple[_CompiledCategory, ...]:
    return _compile(DEFAULT_LEXICON)


def _mask(text: str, pattern: re.Pattern[str] | None) -> str:
    """Blank out exception phrases, keeping offsets, so their words cannot match."""
    if pattern is None:
        return text
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _in_script(language: Language, ch: str) -> bool:
    return _is_cyrillic(ch) if language is Language.RU else _is_latin(ch)


def _hits(views: Mapping[Language, str], compiled: Iterable[_CompiledCategory]) -> list[LexiconHit]:
    found: list[LexiconHit] = []
    for entry in compiled:
        normalised = views[entry.language]
        if not any(_in_script(entry.language, ch) for ch in normalised):
            continue
        for match in entry.pattern.finditer(_mask(normalised, entry.exceptions)):
            group = next(name for name, value in match.groupdict().items() if value is not None)
            found.append(
                LexiconHit(
                    category=entry.category,
                    language=entry.language,
                    term=entry.terms[int(group[1:])],
                    matched=normalised[match.start() : match.end()],
                    start=match.start(),
                )
            )
    return found


# --- classification -------------------------------------------------------------------------


class InferencePolicy:
    """Classifier bound to one config and one lexicon; compile once, classify many times."""

    def __init__(
        self,
        config: InferencePolicyConfig | None = None,
        lexicon: Lexicon | None = None,
    ) -> None:
        self._config = config or InferencePolicyConfig()
        self._compiled = _default_compiled() if lexicon is None else _compile(lexicon)

    @property
    def config(self) -> InferencePolicyConfig:
        return self._config

    def classify(
        self,
        text: str,
        *,
        second_opinion: SemanticOpinion | Mapping[Category, float] | None = None,
    ) -> PolicyDecision:
        language = detect_language(text)
        hits = sorted(
            _hits(_script_views(text), self._compiled),
            key=lambda hit: (hit.start, _CATEGORY_ORDER[hit.category]),
        )
        decision = self._lexical_decision(hits, language)
        if second_opinion is None:
            return decision
        scores = second_opinion if isinstance(second_opinion, Mapping) else second_opinion(text)
        return self._escalate(decision, scores)

    def _lexical_decision(self, hits: list[LexiconHit], language: str) -> PolicyDecision:
        if not hits:
            return PolicyDecision(
                policy_class=PolicyClass.ALLOWED,
                category=None,
                reason="no never-infer or high-bar term matched",
                language=language,
            )
        strictest = max(
            (category_class(h.category, self._config) for h in hits), key=lambda c: _RANK[c]
        )
        # The first hit of the strictest class in reading order names the category, except that
        # health status, the broadest §4.1 entry, yields to a more specific one ("symptoms of
        # dementia" is a diagnosis).
        first = min(
            (h for h in hits if category_class(h.category, self._config) is strictest),
            key=lambda h: (h.category is Category.HEALTH_STATUS, h.start),
        )
        label = "a never-infer" if strictest is PolicyClass.NEVER_INFER else "a high-bar"
        reason = (
            f"{first.category.value} is {label} category (spec {_SPEC_SECTION[first.category]}): "
            f"matched {first.matched!r} by {first.language.value} term {first.term!r}"
        )
        return PolicyDecision(
            policy_class=strictest,
            category=first.category,
            reason=reason,
            language=language,
            hits=tuple(hits),
        )

    def _escalate(
        self, decision: PolicyDecision, scores: Mapping[Category, float]
    ) -> PolicyDecision:
        best: tuple[int, float, Category] | None = None
        for category, score in scores.items():
            if not math.isfinite(score):
                raise ValueError(f"semantic score for {category} is not finite: {score}")
            policy_class = category_class(category, self._config)
            threshold = (
                self._config.semantic_never_infer_threshold
                if policy_class is PolicyClass.NEVER_INFER
                else self._config.semantic_high_bar_threshold
            )
            if score < threshold or _RANK[policy_class] <= _RANK[decision.policy_class]:
                continue
            candidate = (_RANK[policy_class], score, category)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
        if best is None:
            return decision
        _, score, category = best
        return decision.model_copy(
            update={
                "policy_class": category_class(category, self._config),
                "category": category,
                "semantic_score": score,
                "reason": (
                    f"semantic second opinion: similarity {score:.2f} to {category.value} "
                    f"(spec {_SPEC_SECTION[category]}) reaches the escalation threshold; "
                    f"lexical result was {decision.policy_class.value}"
                ),
            }
        )


@lru_cache(maxsize=8)
def _policy_for(config: InferencePolicyConfig) -> InferencePolicy:
    return InferencePolicy(config)


def classify(
    text: str,
    *,
    config: InferencePolicyConfig | None = None,
    second_opinion: SemanticOpinion | Mapping[Category, float] | None = None,
) -> PolicyDecision:
    """Classify a candidate hypothesis with the default lexicon."""
    return _policy_for(config or InferencePolicyConfig()).classify(
        text, second_opinion=second_opinion
    )
