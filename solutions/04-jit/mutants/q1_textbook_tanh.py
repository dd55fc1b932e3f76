"""Writes tanh from its textbook formula, which overflows to inf / inf = nan for |x| > 89. Call
jnp.tanh, which stays finite."""

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="kind")
def activation(x, kind):
    if kind == "relu":
        return jnp.maximum(x, 0)
    if kind == "tanh":
        return (jnp.exp(x) - jnp.exp(-x)) / (jnp.exp(x) + jnp.exp(-x))
    return x
