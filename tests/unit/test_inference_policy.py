"""Inference policy (spec §4.1, §4.2): what the sleep phase may hypothesise, English and Russian."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.domain.hypotheses import HypothesisPolicy
from selfimprint.domain.inference_lexicon import DEFAULT_LEXICON, CategoryTerms
from selfimprint.domain.inference_policy import (
    Category,
    InferencePolicy,
    InferencePolicyConfig,
    Language,
    PolicyClass,
    category_class,
    classify,
    evidence_bar,
    normalise,
)
from selfimprint.domain.language import UNDETERMINED, detect_language
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

EVAL = load_script("eval_inference_policy")
EXAMPLES = {language: EVAL.load_examples(language) for language in ("en", "ru")}
NEVER_INFER_TEXTS = [
    (language, e.text)
    for language, examples in EXAMPLES.items()
    for e in examples
    if e.expected is PolicyClass.NEVER_INFER
]


# --- the labelled sets --------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ru"])
def test_labelled_set_is_large_and_covers_every_category(language: str) -> None:
    examples = EXAMPLES[language]
    assert len(examples) >= 40
    assert {e.category for e in examples if e.category is not None} == set(Category)
    assert {e.expected for e in examples} == set(PolicyClass)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_never_infer_recall_is_total_and_precision_reasonable(language: str) -> None:
    evaluation = EVAL.evaluate(EXAMPLES[language])
    never = evaluation.score(PolicyClass.NEVER_INFER)
    assert never.recall == 1.0, [e.text for e, _ in evaluation.errors]
    assert never.precision >= 0.9
    # The high bar and the allowed class matter less but must still mean something.
    assert evaluation.score(PolicyClass.HIGH_BAR).recall >= 0.85
    assert evaluation.score(PolicyClass.ALLOWED).precision >= 0.9
    assert evaluation.score(PolicyClass.ALLOWED).recall >= 0.8


# --- behaviour a reviewer would check by hand -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The user likes Italian food.", PolicyClass.ALLOWED),
        ("The user is of Italian descent.", PolicyClass.NEVER_INFER),
        ("User goes to the gym every morning.", PolicyClass.ALLOWED),
        ("User goes to the clinic every morning.", PolicyClass.NEVER_INFER),
        ("The user complains about office politics.", PolicyClass.ALLOWED),
        ("The user is politically active.", PolicyClass.NEVER_INFER),
        ("The user reads crime novels.", PolicyClass.ALLOWED),
        ("The user has a criminal record and reads crime novels.", PolicyClass.NEVER_INFER),
        ("Пользователь болеет за «Зенит».", PolicyClass.ALLOWED),
        ("Пользователь часто болеет зимой.", PolicyClass.NEVER_INFER),
        ("Пользователь долго выбирал фреймворк.", PolicyClass.ALLOWED),
        ("У пользователя долги.", PolicyClass.NEVER_INFER),
        ("Пользователь ходит в спортзал.", PolicyClass.ALLOWED),
        ("Пользователь часто спорит с начальником.", PolicyClass.HIGH_BAR),
        ("Пользователь ищет библиотеку для логов.", PolicyClass.ALLOWED),
    ],
)
def test_tricky_negatives_and_their_positive_twins(text: str, expected: PolicyClass) -> None:
    assert classify(text).policy_class is expected


@pytest.mark.parametrize(
    "text",
    [
        "У пользователя депрессия.",
        "Пользователь страдает депрессией.",
        "Пользователь говорит о депрессии.",
        "Похоже на депрессивный эпизод.",
        "Пользовательница, вероятно, верующая.",
        "Пользователь, вероятно, верующий.",
        "Пользователи, вероятно, верующие.",
        "Пользователь ходит в церковь.",
        "Пользователь часто бывает в церкви.",
        "Пользователь не вылезает из долгов.",
        "Пользователь живёт в долг.",
        "Пользователь был арестован.",
        "Пользовательницу арестовали.",
    ],
)
def test_russian_inflections_are_covered(text: str) -> None:
    assert classify(text).policy_class is PolicyClass.NEVER_INFER


def test_negation_does_not_make_a_sensitive_claim_safe() -> None:
    decision = classify("The user is not religious at all.")
    assert decision.policy_class is PolicyClass.NEVER_INFER
    assert decision.category is Category.RELIGIOUS_BELIEFS


def test_decision_names_the_category_and_the_evidence() -> None:
    decision = classify("Пользователь, скорее всего, голосует за оппозицию.")
    assert decision.policy_class is PolicyClass.NEVER_INFER
    assert decision.category is Category.POLITICAL_VIEWS
    assert decision.language == "ru"
    assert "§4.1" in decision.reason and "голосует" in decision.reason
    assert not decision.may_form_hypothesis
    assert {h.category for h in decision.hits} == {Category.POLITICAL_VIEWS}


def test_high_bar_decision_reports_spec_section() -> None:
    decision = classify("The user seems stressed about the launch.")
    assert decision.policy_class is PolicyClass.HIGH_BAR
    assert decision.category is Category.EMOTIONAL_STATE
    assert "§4.2" in decision.reason
    assert decision.may_form_hypothesis


def test_strictest_class_wins_over_reading_order() -> None:
    decision = classify("The user is stressed about their mortgage.")
    assert decision.policy_class is PolicyClass.NEVER_INFER
    assert decision.category is Category.FINANCIAL_POSITION


def test_specific_category_is_named_before_the_health_catch_all() -> None:
    assert classify("Early symptoms of dementia.").category is Category.MEDICAL_DIAGNOSIS


def test_mixed_language_text_is_checked_with_both_lexicons() -> None:
    decision = classify("Пользователь писал, что he is probably gay.")
    assert decision.policy_class is PolicyClass.NEVER_INFER
    # Read as Russian, yet the English lexicon found the term: each lexicon applies wherever its
    # script occurs, whatever the language of the whole text.
    assert decision.language == "ru"
    assert {h.language for h in decision.hits} == {Language.EN}


def test_empty_text_is_allowed() -> None:
    decision = classify("   ")
    assert decision.policy_class is PolicyClass.ALLOWED
    assert decision.language == UNDETERMINED


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The user likes tea.", "en"),
        ("User works as a backend developer.", "en"),
        ("Пользователь пьёт чай.", "ru"),
        ("На работе пользователь пишет на Python.", "ru"),
        ("Пользовательница смотрит много сериалов про врачей.", "ru"),
        # Three words of five are Cyrillic: a non-Latin script with a quarter of the words wins.
        ("User said: я люблю чай", "ru"),
        ("12345 !?", UNDETERMINED),
    ],
)
def test_decision_reports_the_language_the_rest_of_the_service_sees(
    text: str, language: str
) -> None:
    assert classify(text).language == detect_language(text) == language


def test_normalise_folds_case_yo_width_invisibles_and_accents() -> None:
    assert normalise("ЁЛКА\u200b Ｔｅｓｔ") == "елка test"
    assert normalise("депре\u0301ссия") == "депрессия"
    assert normalise("left\u2014wing") == "left-wing"


@pytest.mark.parametrize(
    "text",
    [
        "Пользователь ходит в xpaм.",  # Latin look-alikes for the whole word
        "У пользователя дeпрессия.",  # one Latin "e" inside a Cyrillic word
        "Пользователь платит tax вовремя.",  # an all-look-alike English word in Russian text
        "User is in dеbt.",  # a Cyrillic "е" inside an English word
    ],
)
def test_look_alike_letters_do_not_hide_a_term(text: str) -> None:
    assert classify(text).policy_class is PolicyClass.NEVER_INFER


# --- configuration ------------------------------------------------------------------------


def test_high_bar_needs_more_evidence_and_waits_longer() -> None:
    standard = evidence_bar(PolicyClass.ALLOWED)
    high = evidence_bar(PolicyClass.HIGH_BAR)
    assert standard is not None and high is not None
    assert (standard.min_total_evidence, standard.support_ratio, standard.timeout) == (
        3,
        2.0,
        timedelta(days=14),
    )
    assert high.min_total_evidence > standard.min_total_evidence
    assert high.support_ratio >= standard.support_ratio
    assert high.timeout > standard.timeout
    assert evidence_bar(PolicyClass.NEVER_INFER) is None


def test_evidence_bar_follows_the_lifecycle_config() -> None:
    lifecycle = HypothesisPolicy(
        high_bar_min_evidence_to_confirm=9, high_bar_timeout=timedelta(days=60)
    )
    high = evidence_bar(PolicyClass.HIGH_BAR, lifecycle)
    assert high is not None
    assert (high.min_total_evidence, high.timeout) == (9, timedelta(days=60))
    assert classify("The user seems stressed.").high_bar
    assert not classify("The user likes tea.").high_bar


def test_medical_deployment_moves_health_status_to_the_high_bar_only() -> None:
    medical = InferencePolicyConfig(medical_deployment=True)
    assert category_class(Category.HEALTH_STATUS, medical) is PolicyClass.HIGH_BAR
    assert category_class(Category.MEDICAL_DIAGNOSIS, medical) is PolicyClass.NEVER_INFER
    assert classify("The user may be pregnant.", config=medical).policy_class is (
        PolicyClass.HIGH_BAR
    )
    assert classify("The user may be bipolar.", config=medical).policy_class is (
        PolicyClass.NEVER_INFER
    )
    assert classify("The user may be pregnant.").policy_class is PolicyClass.NEVER_INFER


def test_custom_lexicon_with_a_broken_term_fails_fast() -> None:
    broken = {Language.EN: {Category.POLITICAL_VIEWS: CategoryTerms(terms=("(unclosed",))}}
    with pytest.raises(ValueError, match="unclosed"):
        InferencePolicy(lexicon=broken)


def test_custom_lexicon_replaces_the_default() -> None:
    policy = InferencePolicy(
        lexicon={Language.EN: {Category.POLITICAL_VIEWS: CategoryTerms(terms=("zorblax*",))}}
    )
    assert policy.classify("A zorblaxian voter.").category is Category.POLITICAL_VIEWS
    assert policy.classify("The user is gay.").policy_class is PolicyClass.ALLOWED


def test_default_lexicon_has_both_languages_for_every_category() -> None:
    assert set(DEFAULT_LEXICON) == set(Language) == {Language.EN, Language.RU}
    for language in Language:
        assert set(DEFAULT_LEXICON[language]) == set(Category)


# --- semantic second opinion --------------------------------------------------------------


def test_second_opinion_escalates_a_paraphrase_the_lexicon_misses() -> None:
    text = "The user probably backs the party in power."
    assert classify(text).policy_class is PolicyClass.ALLOWED
    decision = classify(text, second_opinion={Category.POLITICAL_VIEWS: 0.91})
    assert decision.policy_class is PolicyClass.NEVER_INFER
    assert decision.category is Category.POLITICAL_VIEWS
    assert decision.semantic_score == pytest.approx(0.91)
    assert "semantic" in decision.reason


def test_second_opinion_below_threshold_changes_nothing() -> None:
    text = "The user probably backs the party in power."
    decision = classify(text, second_opinion={Category.POLITICAL_VIEWS: 0.03})
    assert decision.policy_class is PolicyClass.ALLOWED  # the margin needed is 0.035
    at = classify(text, second_opinion={Category.POLITICAL_VIEWS: 0.035})
    assert at.policy_class is PolicyClass.NEVER_INFER


def test_second_opinion_never_relaxes_a_lexical_decision() -> None:
    def calm_scorer(text: str) -> Mapping[Category, float]:
        return {Category.EMOTIONAL_STATE: 0.99}

    decision = classify("The user may be bipolar.", second_opinion=calm_scorer)
    assert decision.policy_class is PolicyClass.NEVER_INFER
    assert decision.category is Category.MEDICAL_DIAGNOSIS
    assert decision.semantic_score is None


def test_second_opinion_callable_receives_the_original_text() -> None:
    seen: list[str] = []

    def scorer(text: str) -> Mapping[Category, float]:
        seen.append(text)
        return {Category.LONG_TERM_GOAL: 0.9}

    decision = classify("The user keeps a notebook of ideas.", second_opinion=scorer)
    assert seen == ["The user keeps a notebook of ideas."]
    assert decision.policy_class is PolicyClass.HIGH_BAR


def test_second_opinion_rejects_non_finite_scores() -> None:
    with pytest.raises(ValueError, match="finite"):
        classify("anything", second_opinion={Category.POLITICAL_VIEWS: float("nan")})


# --- invariants ---------------------------------------------------------------------------

_ZERO_WIDTH = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff"])
_LOOK_ALIKES_RU = dict(zip("аеорсхуАЕОРСХКМТВН", "aeopcxyAEOPCXKMTBH", strict=True))
_LOOK_ALIKES_EN = {latin: cyrillic for cyrillic, latin in _LOOK_ALIKES_RU.items()}


@st.composite
def _disguised(draw: st.DrawFn, text: str, language: str) -> str:
    swaps = _LOOK_ALIKES_RU if language == "ru" else _LOOK_ALIKES_EN
    out = []
    for ch in text:
        if ch.isalpha() and draw(st.booleans()):
            ch = ch.upper() if ch.islower() else ch.lower()
        if ch in swaps and draw(st.booleans()):
            ch = swaps[ch]
        if ch == "е" and draw(st.booleans()):
            ch = "ё"
        out.append(ch)
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(_ZERO_WIDTH))
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), case=st.sampled_from(NEVER_INFER_TEXTS))
def test_disguise_never_hides_a_never_infer_example(
    data: st.DataObject, case: tuple[str, str]
) -> None:
    language, text = case
    disguised = data.draw(_disguised(text, language))
    assert classify(disguised).policy_class is PolicyClass.NEVER_INFER, disguised


_RANK = {PolicyClass.ALLOWED: 0, PolicyClass.HIGH_BAR: 1, PolicyClass.NEVER_INFER: 2}
_ALL_TEXTS = [e.text for examples in EXAMPLES.values() for e in examples]


@settings(max_examples=150, deadline=None)
@given(first=st.sampled_from(_ALL_TEXTS), second=st.sampled_from(_ALL_TEXTS))
def test_adding_a_sentence_never_makes_a_hypothesis_less_restricted(
    first: str, second: str
) -> None:
    joined = classify(f"{first} {second}").policy_class
    assert _RANK[joined] == max(
        _RANK[classify(first).policy_class], _RANK[classify(second).policy_class]
    )


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200))
def test_classify_is_total_and_deterministic(text: str) -> None:
    first = classify(text)
    assert first == classify(text)
    assert (first.category is None) == (first.policy_class is PolicyClass.ALLOWED)
