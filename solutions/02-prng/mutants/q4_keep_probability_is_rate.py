"""Keeps each entry with probability rate instead of 1 - rate."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(key, rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)
