"""Stores W as (n_out, n_in), PyTorch's layout, not (n_in, n_out). Draw W with shape (n_in, n_out)."""

import math

import jax
import jax.numpy as jnp


def init_params(key, sizes):
    keys = jax.random.split(key, len(sizes))[1:]
    return [
        {"W": jax.random.normal(k, (n_out, n_in)) * math.sqrt(2 / n_in), "b": jnp.zeros((n_out,))}
        for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:])
    ]
