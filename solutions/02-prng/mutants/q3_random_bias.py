"""Draws the biases from the layer key as well, instead of starting them at zero."""

import math

import jax


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes))[1:]
    params = []
    for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:]):
        k_w, k_b = jax.random.split(k)
        W = jax.random.normal(k_w, (n_in, n_out)) * math.sqrt(2 / n_in)
        params.append({"W": W, "b": jax.random.normal(k_b, (n_out,)) * 0.01})
    return params
