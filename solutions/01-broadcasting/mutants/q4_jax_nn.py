"""Calls jax.nn.standardize, the library answer."""

import jax


def standardize(X, axis=0, eps=1e-8):
    return jax.nn.standardize(X, axis=axis, epsilon=eps)
