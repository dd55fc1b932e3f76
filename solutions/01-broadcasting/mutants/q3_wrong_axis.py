"""Sums over axis 1 (the points of Y) instead of the last axis (the features), so the shape and the
numbers are wrong. Sum over axis=-1."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    return jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=1)
