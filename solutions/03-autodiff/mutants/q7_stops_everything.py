"""Wraps the whole expression in stop_gradient, so nothing flows back at all. Stop only the difference
round(x) - x."""

import jax
import jax.numpy as jnp


def straight_through_round(x):
    return jax.lax.stop_gradient(x + jnp.round(x) - x)
