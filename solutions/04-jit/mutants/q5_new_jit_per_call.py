"""Jits a new lambda closing over alpha on every call, so every call compiles again. Jit scaled_sum
once, with alpha an argument."""

import jax
import jax.numpy as jnp


def scaled_sum(x, alpha):
    return jax.jit(lambda x: alpha * jnp.sum(x))(x)
