"""Returns the unpacked subkeys as a Python list instead of one stacked key array."""

import jax


def split_keys(key, n):
    new_key, *subkeys = jax.random.split(key, n + 1)
    return new_key, subkeys
