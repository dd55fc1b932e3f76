"""Draws the mask from NumPy's global generator instead of the key."""

import jax.numpy as jnp
import numpy as np


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = np.random.random(x.shape) < 1 - rate
    return jnp.where(keep, x / (1 - rate), 0)
