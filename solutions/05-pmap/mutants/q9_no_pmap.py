"""Normalises the whole array with one jnp.sum outside pmap or shard_map: the numbers are right,
but nothing runs per device and no collective is used."""

import jax.numpy as jnp


def global_normalize(x):
    return x / jnp.sum(x)
