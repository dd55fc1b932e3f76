"""Multiplies by the mask and then divides by 1 - rate, and at rate 1 that is 0 / 0 = nan. Return zeros
when rate is 1 (or divide only where kept, with jnp.where)."""

import jax


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return x * keep / (1 - rate)
