"""Drops entries but forgets to scale the kept ones by 1 / (1 - rate) (not inverted dropout)."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x, 0)
