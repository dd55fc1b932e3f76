"""Assigns in place, as with NumPy: JAX arrays are immutable, so this raises TypeError. Use the
functional update M.at[i, i].set(v), which returns a new array."""

import jax.numpy as jnp


def set_diagonal(M, v):
    i = jnp.arange(min(M.shape))
    M[i, i] = v
    return M
