"""Calls jnp.fill_diagonal, the library answer, instead of an `.at` update."""

import jax.numpy as jnp


def set_diagonal(M, v):
    return jnp.fill_diagonal(M, v, inplace=False)
