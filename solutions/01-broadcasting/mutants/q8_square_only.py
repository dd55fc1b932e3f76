"""Indexes the diagonal by the number of rows, as if M were square: for a tall M (more rows than
columns) that is too many indices. Index by min(M.shape)."""

import jax.numpy as jnp


def set_diagonal(M, v):
    return M.at[jnp.diag_indices(M.shape[0])].set(v)
