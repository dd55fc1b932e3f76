"""Sets one diagonal entry per iteration of a Python loop."""

import jax.numpy as jnp


def set_diagonal(M, v):
    v = jnp.broadcast_to(v, (min(M.shape),))
    for i in range(min(M.shape)):
        M = M.at[i, i].set(v[i])
    return M
