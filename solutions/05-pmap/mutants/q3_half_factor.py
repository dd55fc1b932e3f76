"""Adds the textbook factor 1/2 (0.5 * mean squared error), which the assignment's loss does not have.
Return the plain mean of the squared errors."""

import jax.numpy as jnp


def mse_loss(params, x, y):
    return 0.5 * jnp.mean((params["w"] * x + params["b"] - y) ** 2)
