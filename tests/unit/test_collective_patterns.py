"""CollectiveImprint end to end without Neo4j (spec §3.7): episodes reduced to enumerated
features, counted by per-pattern pseudonyms, hints only at k distinct users and never a word of
any user. The store is an in-memory CollectiveStore; tests/e2e/test_api_collective.py runs the
same path against the real API and Neo4j."""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from selfimprint.config import Settings
from selfimprint.domain.collective import (
    anonymity_threshold,
    pattern_pseudonym,
    withdrawal_pseudonyms,
)
from selfimprint.domain.collective_patterns import (
    REQUEST_CUES,
    ContextState,
    Mood,
    PatternLanguage,
    RequestClass,
    RequestFeatures,
    classify_request,
    hint_for,
    request_features,
)
from selfimprint.domain.language import detect_language
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.ports import PatternTally
from selfimprint.service.collective import collective_hints, gate_config, record_unhelpful_context

pytestmark = pytest.mark.unit

K_FLOOR = 3
SETTINGS = Settings(_env_file=None, collective_k_floor=K_FLOOR)
SECRET = b"s" * 32

ALL_FEATURES = [
    RequestFeatures(language=lang, mood=mood, request_class=kind, context=state)
    for lang in PatternLanguage
    for mood in Mood
    for kind in RequestClass
    for state in ContextState
]
ALL_KEYS = frozenset(f.key for f in ALL_FEATURES)
ALL_HINTS = frozenset(hint_for(f) for f in ALL_FEATURES)
# Words the shared layer may say: its own templates and enumerated values, whoever typed them too.
FIXED_WORDS = frozenset(
    w.casefold() for text in (*ALL_HINTS, *ALL_KEYS) for w in re.findall(r"\w+", text)
)


@dataclass
class MemoryCollective:
    """CollectiveStore in memory, with the adapter's semantics (adapters/neo4j/collective.py)."""

    contributors: dict[tuple[str, str], list[str]] = field(
        default_factory=lambda: defaultdict(list)
    )
    graduated_keys: set[tuple[str, str]] = field(default_factory=set)
    active: int = 0
    counted: int = 0  # how often the active users were counted

    async def contribute(self, tenant: str, pattern_key: str, pseudonym: str) -> PatternTally:
        listed = self.contributors[(tenant, pattern_key)]
        graduated = (tenant, pattern_key) in self.graduated_keys
        if not graduated and pseudonym not in listed:
            listed.append(pseudonym)
        return PatternTally(tuple(listed), graduated)

    async def graduate(self, tenant: str, pattern_key: str, k: int) -> None:
        self.graduated_keys.add((tenant, pattern_key))
        self.contributors[(tenant, pattern_key)] = []

    async def graduated(self, tenant: str, pattern_keys: Sequence[str]) -> frozenset[str]:
        return frozenset(k for k in pattern_keys if (tenant, k) in self.graduated_keys)

    async def active_users(self, tenant: str, since: datetime) -> int:
        self.counted += 1
        return self.active

    async def pending(self, tenant: str) -> frozenset[str]:
        return frozenset(
            k for (t, k) in self.contributors if t == tenant and (t, k) not in self.graduated_keys
        )

    async def withdraw(self, tenant: str, pseudonyms: Mapping[str, str]) -> int:
        touched = 0
        for key, pseudonym in pseudonyms.items():
            listed = self.contributors.get((tenant, key), [])
            if (tenant, key) not in self.graduated_keys and pseudonym in listed:
                listed.remove(pseudonym)
                touched += 1
        return touched


@dataclass
class FakeResources:
    store: MemoryCollective
    settings: Settings = SETTINGS
    collective_key: bytes = SECRET
    clock: Callable[[], datetime] = lambda: datetime(2026, 6, 1, tzinfo=UTC)
    tuning: DomainTuning = field(default_factory=DomainTuning)

    def collective(self) -> MemoryCollective:
        return self.store


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("Do you remember what I told you about my sister?", RequestClass.RECALL),
        ("Помнишь, что я рассказывал про сестру?", RequestClass.RECALL),
        ("Should I take the job offer in Berlin?", RequestClass.ADVICE),
        ("Посоветуй, стоит ли менять работу", RequestClass.ADVICE),
        ("Help me plan the move next week", RequestClass.PLANNING),
        ("Помоги спланировать поездку", RequestClass.PLANNING),
        ("I feel so lonely and anxious today", RequestClass.EMOTIONAL_SUPPORT),
        ("Мне грустно и тревожно", RequestClass.EMOTIONAL_SUPPORT),
        ("hi, how are you?", RequestClass.SMALL_TALK),
        ("Привет, как дела?", RequestClass.SMALL_TALK),
        ("The capital of Peru", RequestClass.OTHER),
        ("this thin history", RequestClass.OTHER),  # "hi" only as a whole word
    ],
)
def test_requests_fall_into_the_fixed_taxonomy(message: str, kind: RequestClass) -> None:
    assert classify_request(message) is kind


def test_features_say_language_mood_and_whether_the_context_was_empty() -> None:
    asked = request_features("Помнишь мою сестру?", "ru", memories_served=0)
    assert asked.key == "v1:ru:question:recall:empty"
    planned = request_features("I will plan a trip", "de", memories_served=4)
    assert planned.key == "v1:other:plan:planning:served"
    assert hint_for(asked).startswith("Пользователи")
    assert hint_for(planned).startswith("Users")  # no German templates: English


def test_every_class_has_cues_and_a_hint_in_each_template_language() -> None:
    assert set(REQUEST_CUES) == set(RequestClass) - {RequestClass.OTHER}
    assert len(ALL_HINTS) == 2 * len(RequestClass) * len(ContextState)  # en and ru


def test_pseudonyms_differ_per_pattern_so_contributions_cannot_be_linked() -> None:
    one = pattern_pseudonym("acme", "user-42", "v1:en:question:recall:empty", SECRET)
    assert one == pattern_pseudonym("acme", "user-42", "v1:en:question:recall:empty", SECRET)
    assert one != pattern_pseudonym("acme", "user-42", "v1:en:question:advice:empty", SECRET)
    assert one != pattern_pseudonym("acme", "user-42", "v1:en:question:recall:empty", b"t" * 32)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"\w+", text) if len(w) > 3}


# Messages that reach every class: random words mixed with cue phrases, EN and RU.
CUE_PHRASES = [
    "do you remember",
    "помнишь",
    "should I",
    "посоветуй",
    "plan",
    "завтра",
    "I feel sad",
    "мне грустно",
    "hello",
    "привет",
]
# Mostly Latin and Cyrillic words (so many episodes share a pattern and graduate), some any
# letters at all.
words = st.one_of(
    st.text("abcdefghijklmnopqrstuvwxyzабвгдежзиклмнопрстуфхцчшщыэюя", min_size=1, max_size=12),
    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12),
)
cues = st.sampled_from(CUE_PHRASES)
messages = st.builds(
    lambda parts, end: " ".join(parts) + end,
    st.lists(st.one_of(cues, cues, words), min_size=1, max_size=4),
    st.sampled_from(["", "?", "!", "."]),
)
# User ids with a letter no hex digest holds, so "not in a pseudonym" can fail only by a leak.
user_ids = st.text("ghijklmnopqrstuvwxyz0123456789_-", min_size=4, max_size=20).map("u".__add__)
# Per example a few users and a few requests, drawn again and again: patterns graduate, and a
# user's repeats must count once.
episodes = st.tuples(
    st.lists(user_ids, min_size=3, max_size=6, unique=True),
    st.lists(messages, min_size=1, max_size=3),
).flatmap(
    lambda pools: st.lists(
        st.tuples(
            st.sampled_from(pools[0]),
            st.sampled_from(pools[1]),
            st.sampled_from([0, 0, 3]),
            st.sampled_from(["a", "a", "a", "b"]),
        ),
        min_size=1,
        max_size=40,
    )
)


@settings(max_examples=150, deadline=None)
@given(
    episodes=episodes,
    probes=st.lists(messages, min_size=1, max_size=5),
    active=st.integers(0, 4_000),
)
def test_no_hint_below_k_and_no_user_words_anywhere(
    episodes: list[tuple[str, str, int, str]], probes: list[str], active: int
) -> None:
    store = MemoryCollective(active=active)
    resources = FakeResources(store)
    k = anonymity_threshold(active, gate_config(SETTINGS))
    users_by_pattern: dict[tuple[str, str], set[str]] = defaultdict(set)
    graduations: list[bool] = []

    async def play() -> None:
        for user, message, served, tenant in episodes:
            features = request_features(message, detect_language(message), served)
            users_by_pattern[(tenant, features.key)].add(user)
            await record_unhelpful_context(resources, UserScope(tenant, user), message, served)
            for probe in [message, *probes]:
                for served_now in (0, 2):
                    lookup = await collective_hints(
                        resources, UserScope(tenant, "someone-else"), probe, detect_language(probe)
                    )
                    hints = lookup(served_now)
                    key = request_features(probe, detect_language(probe), served_now).key
                    # k-anonymity: a hint only once k distinct users produced its pattern.
                    assert not hints or len(users_by_pattern[(tenant, key)]) >= k
                    # Exactly when k is met (the gate runs at each contribution).
                    assert bool(hints) == (len(users_by_pattern[(tenant, key)]) >= k)
                    assert set(hints) <= ALL_HINTS
                    said = _words(message) | _words(probe)
                    assert not set().union(*map(_words, hints)) & (said - FIXED_WORDS)
                    graduations.append(bool(hints))

    asyncio.run(play())
    event("a hint was served" if any(graduations) else "no hint served")
    # What is stored: tenant, a key of enumerated values, and HMAC digests; nothing else.
    assert {key for (_, key) in store.contributors} <= ALL_KEYS
    assert {tenant for (tenant, _) in store.contributors} <= {"a", "b"}
    pseudonyms = [p for listed in store.contributors.values() for p in listed]
    assert all(re.fullmatch(r"[0-9a-f]{64}", p) for p in pseudonyms)
    assert not {user for user, *_ in episodes} & set(pseudonyms)


def test_active_users_are_counted_only_once_the_floor_is_met() -> None:
    store = MemoryCollective(active=50_000)  # k = 50
    resources = FakeResources(store)
    floor = gate_config(SETTINGS).k_floor

    async def play() -> None:
        for n in range(floor + 2):
            message = "Do you remember what I told you about my sister?"
            await record_unhelpful_context(resources, UserScope("a", f"user-{n}"), message, 1)
            # Below the floor no deployment could graduate it: the tenant is not counted.
            assert store.counted == max(0, n + 2 - floor)

    asyncio.run(play())


def test_erasure_withdraws_the_pseudonyms_the_user_contributed_below_k() -> None:
    store = MemoryCollective(active=0)  # k = K_FLOOR
    resources = FakeResources(store)
    recall, advice = "Do you remember my sister?", "Should I take the job?"

    async def play() -> int:
        for user in ("ann", "bob"):
            await record_unhelpful_context(resources, UserScope("a", user), recall, 0)
        await record_unhelpful_context(resources, UserScope("a", "ann"), advice, 0)
        await record_unhelpful_context(resources, UserScope("b", "ann"), recall, 0)
        for n in range(K_FLOOR):  # a pattern of ann's graduates: only its count is kept
            await record_unhelpful_context(resources, UserScope("a", f"u{n}"), "Hi!", 0)
        await record_unhelpful_context(resources, UserScope("a", "ann"), "Hi!", 0)
        pending = await store.pending("a")
        pseudonyms = withdrawal_pseudonyms("a", "ann", pending, SECRET)
        return await store.withdraw("a", pseudonyms)

    recall_key = request_features(recall, "en", 0).key
    advice_key = request_features(advice, "en", 0).key
    assert asyncio.run(play()) == 2  # recall and advice; the graduated one is not pending
    bob = pattern_pseudonym("a", "bob", recall_key, SECRET)
    assert store.contributors[("a", recall_key)] == [bob]
    assert store.contributors[("a", advice_key)] == []
    # The same user id in another tenant is another person.
    assert store.contributors[("b", recall_key)] == [
        pattern_pseudonym("b", "ann", recall_key, SECRET)
    ]
