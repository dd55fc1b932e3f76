"""Calls jax.nn.standardize, the library answer, which the question rules out. Take the mean and the
std along axis yourself, with keepdims=True."""

import jax


def standardize(X, axis=0, eps=1e-8):
    return jax.nn.standardize(X, axis=axis, epsilon=eps)
