"""Splits as it goes (key, subkey = split(key) per layer) instead of q2's convention."""

import math

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, subkey = jax.random.split(key)
        W = jax.random.normal(subkey, (n_in, n_out)) * math.sqrt(2 / n_in)
        params.append({"W": W, "b": jnp.zeros((n_out,))})
    return params
