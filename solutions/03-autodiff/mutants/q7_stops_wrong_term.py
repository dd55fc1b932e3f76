"""Stops the gradient of x instead of the rounding residual: the gradient comes out -1."""

import jax
import jax.numpy as jnp


def straight_through_round(x):
    return jax.lax.stop_gradient(x) + jnp.round(x) - x
