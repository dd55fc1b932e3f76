"""Uses the same key for every layer, so layers of equal shape get identical weights. Give each layer
its own key from split(key, L + 1)[1:]."""

import math

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    return [
        {"W": jax.random.normal(key, (n_in, n_out)) * math.sqrt(2 / n_in), "b": jnp.zeros((n_out,))}
        for n_in, n_out in zip(sizes[:-1], sizes[1:])
    ]
