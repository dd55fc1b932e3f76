"""Draws b at random too, from a split of the layer key, instead of starting it at zero."""

import math

import jax


def init_params(key, sizes):
    keys = jax.random.split(key, len(sizes))[1:]
    params = []
    for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:]):
        kw, kb = jax.random.split(k)
        params.append(
            {
                "W": jax.random.normal(kw, (n_in, n_out)) * math.sqrt(2 / n_in),
                "b": 0.01 * jax.random.normal(kb, (n_out,)),
            }
        )
    return params
