"""Jits once with alpha traced, as asked, but scales by alpha ** 2 instead of alpha. Scale by alpha
itself."""

import jax
import jax.numpy as jnp


def scaled_sum(x, alpha):
    return alpha**2 * jnp.sum(x)


scaled_sum = jax.jit(scaled_sum)
