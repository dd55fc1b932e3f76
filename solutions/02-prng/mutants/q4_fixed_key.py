"""Makes its own key inside the function, so every call draws the same mask. Draw the mask from the key
you are given."""

import jax
import jax.numpy as jnp


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(jax.random.key(0), 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)
