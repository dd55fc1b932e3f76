"""Splits off n subkeys but hands the input key back as new_key, so the caller reuses it."""

import jax


def split_keys(key, n):
    return key, jax.random.split(key, n)
