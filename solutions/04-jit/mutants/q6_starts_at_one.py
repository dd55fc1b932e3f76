"""Starts from x0 = 1 instead of x0 = a, as the docstring asks."""

import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, iters):
    return lax.fori_loop(0, iters, lambda i, x: (x + a / x) / 2, jnp.ones_like(a))
