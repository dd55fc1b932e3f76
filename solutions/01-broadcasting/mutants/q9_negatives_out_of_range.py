"""Treats every negative index as out of range, where NumPy counts -1 .. -n from the end. Accept -n <=
idx < n."""

import jax.numpy as jnp


def take_or_fill(x, idx, fill):
    n = x.shape[0]
    return jnp.where((idx >= 0) & (idx < n), x[idx], fill)
