"""What the readers' training scripts share (issue 34): low-rank adapters on multilingual-e5-
small's top layers, the tuned layers' forward in jax over `e5_encoder.encoder_layer` (the
arithmetic the server runs in numpy), mean pooling, and Adam with a 10 % warm-up then a linear
decay. Used by scripts/train_type_reader.py and scripts/train_contradiction_reader.py; jax on
CPU (`pip install -e '.[train]'`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import MATRICES, VECTORS, E5Weights, encoder_layer, run_layers
from selfimprint.adapters.tuned_layers import POOL_SCALE


def balanced(y: NDArray[np.int32], classes: int) -> NDArray[np.float32]:
    """Class weights that give each class the same share of the loss."""
    counts = np.maximum(np.bincount(y, minlength=classes), 1)
    return np.asarray(len(y) / (classes * counts), dtype=np.float32)


def adapter_layers(
    jnp: Any, weights: E5Weights, first: int, count: int, rank: int, seed: int
) -> list[dict[str, Any]]:
    """Trainable layers `first`..`first + count - 1`: their norms and biases, and for each
    matrix an update B @ A that starts at zero (A drawn, B zeros)."""
    init = np.random.default_rng(seed)
    out = []
    for i in range(count):
        base = weights.layers[first + i]
        layer = {k: jnp.asarray(base[k]) for k in VECTORS}
        for name in MATRICES:
            rows, columns = base[name].shape
            a = init.normal(0.0, 1.0 / np.sqrt(columns), (rank, columns)).astype(np.float32)
            layer[f"{name}.A"] = jnp.asarray(a)
            layer[f"{name}.B"] = jnp.zeros((rows, rank))
        out.append(layer)
    return out


def pooled_fn(jax: Any, weights: E5Weights, first: int, count: int) -> Callable[..., Any]:
    """pooled(layers, x, mask): the tuned layers over a padded batch, mean-pooled over its
    tokens, unit length, times POOL_SCALE (as the server pools)."""
    jnp = jax.numpy
    fixed = [{k: jnp.asarray(weights.layers[first + i][k]) for k in MATRICES} for i in range(count)]

    def gelu(v: Any) -> Any:
        return jax.nn.gelu(v, approximate=False)

    def pooled(layers: list[Mapping[str, Any]], xb: Any, mb: Any) -> Any:
        for layer, base in zip(layers, fixed, strict=True):
            full = {k: v for k, v in layer.items() if not k.endswith((".A", ".B"))}
            for name in MATRICES:
                full[name] = base[name] + layer[f"{name}.B"] @ layer[f"{name}.A"]
            xb = encoder_layer(jnp, xb, mb, full, heads=weights.heads, eps=weights.eps, gelu=gelu)
        v = (xb * mb[..., None]).sum(1) / mb.sum(1, keepdims=True)
        return v / jnp.linalg.norm(v, axis=-1, keepdims=True) * POOL_SCALE

    return pooled


def fit(
    jax: Any,
    params: dict[str, Any],
    loss: Callable[..., Any],
    rate: Callable[[str], float],
    batches: Callable[[int], Iterable[tuple[Any, ...]]],
    epochs: int,
    per_epoch: int,
    report: Callable[[int, float, dict[str, Any]], None],
) -> dict[str, Any]:
    """Adam (0.9, 0.999) over `epochs` of `batches(epoch)`, each rate scaled by a 10 % warm-up
    and a linear decay; `rate(key)` is a parameter's own rate by its name; `report(epoch,
    mean loss, params)` after each epoch."""
    jnp = jax.numpy
    rates = jax.tree_util.tree_map_with_path(
        lambda path, _: rate(str(getattr(path[-1], "key", ""))), params
    )
    step_fn = jax.jit(jax.value_and_grad(loss))
    first_moment = jax.tree_util.tree_map(jnp.zeros_like, params)
    second_moment = jax.tree_util.tree_map(jnp.zeros_like, params)
    total, step = epochs * per_epoch, 0
    for epoch in range(epochs):
        running = 0.0
        for batch in batches(epoch):
            step += 1
            value, grads = step_fn(params, *batch)
            running += float(value)
            schedule = min(1.0, step / (0.1 * total)) * (total - step + 1) / total
            params, first_moment, second_moment = _adam(
                jax, params, first_moment, second_moment, grads, rates, step, schedule
            )
        report(epoch, running / max(per_epoch, 1), params)
    return params


def _adam(
    jax: Any,
    params: Any,
    first_moment: Any,
    second_moment: Any,
    grads: Any,
    rates: Any,
    step: int,
    schedule: float,
) -> tuple[Any, Any, Any]:
    jnp = jax.numpy
    tree_map = jax.tree_util.tree_map
    first_moment = tree_map(lambda a, g: 0.9 * a + 0.1 * g, first_moment, grads)
    second_moment = tree_map(lambda a, g: 0.999 * a + 0.001 * g * g, second_moment, grads)
    fix1, fix2 = 1 - 0.9**step, 1 - 0.999**step
    params = tree_map(
        lambda w, a, s, r: w - r * schedule * (a / fix1) / (jnp.sqrt(s / fix2) + 1e-8),
        params,
        first_moment,
        second_moment,
        rates,
    )
    return params, first_moment, second_moment


def padded_width(mask: NDArray[np.float32]) -> int:
    """A batch's longest text rounded up to 8 tokens (fewer shapes for jax to compile)."""
    return int(min(mask.shape[1], -(-int(mask.sum(1).max()) // 8) * 8))


def frozen_states(
    weights: E5Weights, ids: list[list[int]], first: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Each token list's states below the tuned layers (computed once, in numpy, with the
    arithmetic the server runs), padded: [texts, tokens, hidden], and the mask of real tokens."""
    states = [run_layers(weights, weights.embed_tokens(t), weights.layers[:first]) for t in ids]
    longest = max(len(s) for s in states)
    x = np.zeros((len(states), longest, weights.hidden), dtype=np.float32)
    mask = np.zeros((len(states), longest), dtype=np.float32)
    for i, s in enumerate(states):
        x[i, : len(s)] = s
        mask[i, : len(s)] = 1.0
    return x, mask
