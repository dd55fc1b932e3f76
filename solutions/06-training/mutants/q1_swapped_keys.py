"""Takes the keys of split(key) the other way round: x from the second, the noise from the first. Draw
x from the first key and the noise from the second."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    kn, kx = jax.random.split(key)
    x = jax.random.uniform(kx, (n, 1), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + 0.1 * jax.random.normal(kn, (n, 1))
    return x, y
