"""Makes its own key inside the function, so every key gives the same estimate. Draw the points from
the key you are given."""

import jax
import jax.numpy as jnp


def estimate_pi(key, n):
    points = jax.random.uniform(jax.random.key(0), (n, 2))
    return (4.0 * jnp.mean(jnp.sum(points**2, axis=1) <= 1)).astype(jnp.float32)
