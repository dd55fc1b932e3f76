"""Draws x and the noise from the same key instead of splitting it: the noise is then a function
of x (the same random bits feed both draws)."""

import jax
import jax.numpy as jnp


def make_dataset(key, n):
    x = jax.random.uniform(key, (n, 1), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + 0.1 * jax.random.normal(key, (n, 1))
    return x, y
