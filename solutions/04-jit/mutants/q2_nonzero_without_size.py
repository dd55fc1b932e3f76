"""Gathers the negative entries with jnp.nonzero without `size`: a value-dependent shape."""

import jax.numpy as jnp


def sum_negatives(x):
    (idx,) = jnp.nonzero(x < 0)
    return jnp.sum(x[idx])
