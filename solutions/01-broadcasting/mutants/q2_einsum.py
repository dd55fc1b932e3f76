"""Writes the outer product as an einsum, which the question rules out. Give x a new last axis and y a
new first axis and multiply."""

import jax.numpy as jnp


def outer(x, y):
    return jnp.einsum("i,j->ij", x, y)
