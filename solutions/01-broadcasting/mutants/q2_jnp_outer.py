"""Calls jnp.outer, which the question rules out. Give x a new last axis and y a new first axis and
multiply."""

import jax.numpy as jnp


def outer(x, y):
    return jnp.outer(x, y)
