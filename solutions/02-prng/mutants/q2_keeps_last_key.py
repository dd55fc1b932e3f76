"""Keeps the last of the n + 1 keys instead of the first (a split convention other than q2's)."""

import jax


def split_keys(key, n):
    keys = jax.random.split(key, n + 1)
    return keys[-1], keys[:-1]
