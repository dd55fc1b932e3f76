"""Writes x + (round(x) - x) without stop_gradient: the x terms cancel and the gradient is 0."""

import jax.numpy as jnp


def straight_through_round(x):
    return x + (jnp.round(x) - x)
