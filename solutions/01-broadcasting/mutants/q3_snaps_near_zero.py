"""Hides cancellation by snapping distances below 1% of the points' squared norms to 0: never negative,
but far from the origin it wipes out real distances. Clip at 0 instead, or subtract the points
themselves."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    sq_x = jnp.sum(X**2, axis=1)[:, None]
    sq_y = jnp.sum(Y**2, axis=1)[None, :]
    D = jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    return jnp.where(D < 1e-2 * (sq_x + sq_y), 0.0, D)
