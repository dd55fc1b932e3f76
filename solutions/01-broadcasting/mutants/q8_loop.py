"""Sets one diagonal entry per iteration of a Python loop, which the question rules out. Index every
diagonal entry at once with jnp.arange(min(M.shape))."""

import jax.numpy as jnp


def set_diagonal(M, v):
    v = jnp.broadcast_to(v, (min(M.shape),))
    for i in range(min(M.shape)):
        M = M.at[i, i].set(v[i])
    return M
