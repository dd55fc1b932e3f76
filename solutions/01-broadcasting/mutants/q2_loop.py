"""Builds the rows in a Python loop, which the question rules out. Give x a new last axis and y a new
first axis and let broadcasting build every row at once."""

import jax.numpy as jnp


def outer(x, y):
    return jnp.stack([xi * y for xi in x])
