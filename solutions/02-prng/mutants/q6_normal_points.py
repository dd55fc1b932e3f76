"""Draws the points from a standard normal instead of uniformly in the unit square."""

import jax
import jax.numpy as jnp


def estimate_pi(key, n):
    points = jax.random.normal(key, (n, 2))
    return (4.0 * jnp.mean(jnp.sum(points**2, axis=1) <= 1)).astype(jnp.float32)
