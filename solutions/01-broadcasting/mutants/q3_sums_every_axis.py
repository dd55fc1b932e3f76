"""Sums the squared differences over every axis: one number instead of an (n, m) matrix."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    return jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2)
