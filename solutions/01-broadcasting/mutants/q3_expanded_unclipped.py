"""Expands ||x||^2 - 2 x.y + ||y||^2 and forgets to clip: cancellation gives negative values."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    sq_x = jnp.sum(X**2, axis=1)
    sq_y = jnp.sum(Y**2, axis=1)
    return sq_x[:, None] - 2 * X @ Y.T + sq_y[None, :]
