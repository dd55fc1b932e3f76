"""Sums the squared errors instead of averaging them: the loss grows with the batch size."""

import jax.numpy as jnp


def mse_loss(params, x, y):
    return jnp.sum((params["w"] * x + params["b"] - y) ** 2)
