"""Appends fill to x and sends every out-of-range index to it, but x[-1] of the padded array is now the
fill, so negative indices read one place too far. Convert negative indices to idx + n before the
lookup, or use a gather in fill mode."""

import jax.numpy as jnp


def take_or_fill(x, idx, fill):
    n = x.shape[0]
    padded = jnp.concatenate([x, jnp.array([fill], x.dtype)])
    return padded[jnp.where((idx >= -n) & (idx < n), idx, n)]
