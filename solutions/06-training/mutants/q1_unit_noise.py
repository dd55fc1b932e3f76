"""Adds noise of standard deviation 1: it forgets the factor 0.1. Add 0.1 * normal(...)."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    kx, kn = jax.random.split(key)
    x = jax.random.uniform(kx, (n, 1), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + jax.random.normal(kn, (n, 1))
    return x, y
