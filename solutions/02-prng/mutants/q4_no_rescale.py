"""Drops entries but forgets to scale the kept ones by 1 / (1 - rate), so it is not inverted dropout.
Divide the kept values by 1 - rate."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x, 0)
