"""Converts alpha with float() inside the jitted function: fails when alpha is traced."""

import jax
import jax.numpy as jnp


@jax.jit
def scaled_sum(x, alpha):
    return float(alpha) * jnp.sum(x)
