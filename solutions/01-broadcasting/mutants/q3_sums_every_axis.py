"""Sums the squared differences over every axis: one number instead of an (n, m) matrix. Sum over the
last axis (the features) only."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    return jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2)
