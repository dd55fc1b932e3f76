"""Draws the noise from NumPy's global generator instead of the key: the same key gives
different data on every call."""

import jax
import jax.numpy as jnp
import numpy as np


def make_dataset(key, n):
    kx, _ = jax.random.split(key)
    x = jax.random.uniform(kx, (n, 1), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + 0.1 * np.random.standard_normal((n, 1)).astype(np.float32)
    return x, y
