"""Shifts the scores to be non-negative and divides by their sum, with no exp: it sums to 1 along the
axis, but it is not softmax. Exponentiate the shifted scores before dividing by their sum."""

import jax.numpy as jnp


def softmax(x, axis=-1):
    shifted = x - jnp.min(x, axis=axis, keepdims=True)
    return shifted / jnp.sum(shifted, axis=axis, keepdims=True)
