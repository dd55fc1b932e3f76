"""Adds the step to the raw key data instead of mixing it in with fold_in."""

import jax


def step_key(key, step):
    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(jax.random.key_data(key) + step)
    return key + step
