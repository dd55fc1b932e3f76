"""Draws one normal array of shape (batch, *shape) from the key, not one draw per split key. Vmap
jax.random.normal over split(key, batch)."""

import jax


def batched_normal(key, batch, shape):
    return jax.random.normal(key, (batch, *shape))
