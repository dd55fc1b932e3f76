"""Ignores deterministic=True and drops entries at evaluation time too. Return x unchanged when
deterministic is true."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)
