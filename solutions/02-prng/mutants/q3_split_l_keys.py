"""Takes the layer keys as jax.random.split(key, L) instead of split(key, L + 1)[1:]."""

import math

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        {"W": jax.random.normal(k, (n_in, n_out)) * math.sqrt(2 / n_in), "b": jnp.zeros((n_out,))}
        for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:])
    ]
