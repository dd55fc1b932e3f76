"""Draws one mask over the last axis and broadcasts it, so every row drops the same features. Draw the
mask with x's whole shape."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(key, 1 - rate, x.shape[-1:])
    return jnp.where(keep, x / (1 - rate), 0)
