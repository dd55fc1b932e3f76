"""Expands ||x||^2 - 2 x.y + ||y||^2 and forgets to clip: cancellation in float32 gives small negative
values where the distance is 0. Clip the result at 0 (or subtract the points themselves)."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    sq_x = jnp.sum(X**2, axis=1)
    sq_y = jnp.sum(Y**2, axis=1)
    return sq_x[:, None] - 2 * X @ Y.T + sq_y[None, :]
