"""Returns raw uint32 key data for a typed key, so the caller no longer gets typed keys. Return what
jax.random.split gives, without jax.random.key_data."""

import jax


def split_keys(key, n):
    keys = jax.random.split(key, n + 1)
    if jax.dtypes.issubdtype(keys.dtype, jax.dtypes.prng_key):
        keys = jax.random.key_data(keys)
    return keys[0], keys[1:]
