"""Draws one normal array of shape (batch, *shape) from the key, not one draw per split key."""

import jax


def batched_normal(key, batch, shape):
    return jax.random.normal(key, (batch, *shape))
