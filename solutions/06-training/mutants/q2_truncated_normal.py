"""Uses jax.nn.initializers.he_normal, which draws from a truncated normal, not a plain one. Draw
jax.random.normal and scale it by sqrt(2 / n_in)."""

import jax
import jax.numpy as jnp


def init_params(key, sizes):
    keys = jax.random.split(key, len(sizes))[1:]
    init = jax.nn.initializers.he_normal()
    return [
        {"W": init(k, (n_in, n_out), jnp.float32), "b": jnp.zeros((n_out,))}
        for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:])
    ]
