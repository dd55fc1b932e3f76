"""Jits with iters static, so a traced iters (under an outer jit) cannot be passed. Leave iters traced:
lax.fori_loop accepts a traced trip count."""

import functools

import jax
from jax import lax


@functools.partial(jax.jit, static_argnames="iters")
def newton_sqrt(a, iters):
    return lax.fori_loop(0, iters, lambda i, x: (x + a / x) / 2, a)
