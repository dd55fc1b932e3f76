"""Returns x and y of shape (n,), not the (n, 1) columns the model needs. Draw them with shape (n, 1)."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    kx, kn = jax.random.split(key)
    x = jax.random.uniform(kx, (n,), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + 0.1 * jax.random.normal(kn, (n,))
    return x, y
