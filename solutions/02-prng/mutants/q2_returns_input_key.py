"""Splits off n subkeys but hands the input key back as new_key, so the caller reuses it. Return the
first key of split(key, n + 1) as new_key and the rest as subkeys."""

import jax


def split_keys(key, n):
    return key, jax.random.split(key, n)
