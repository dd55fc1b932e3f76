"""Forgets minval and maxval, so x is uniform in [0, 1), not in [-pi, pi). Pass minval=-jnp.pi,
maxval=jnp.pi."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    kx, kn = jax.random.split(key)
    x = jax.random.uniform(kx, (n, 1))
    y = jnp.sin(x) + 0.1 * jax.random.normal(kn, (n, 1))
    return x, y
