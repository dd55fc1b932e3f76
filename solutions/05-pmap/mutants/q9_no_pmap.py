"""Normalises the whole array with one jnp.sum outside pmap or shard_map: the numbers are right,
but nothing runs per device and no collective is used. Sum each device's row, then lax.psum over
the axis inside jax.shard_map."""

import jax.numpy as jnp


def global_normalize(x):
    return x / jnp.sum(x)
