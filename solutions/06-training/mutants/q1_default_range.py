"""Forgets minval and maxval: x is uniform in [0, 1), not in [-pi, pi)."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    kx, kn = jax.random.split(key)
    x = jax.random.uniform(kx, (n, 1))
    y = jnp.sin(x) + 0.1 * jax.random.normal(kn, (n, 1))
    return x, y
