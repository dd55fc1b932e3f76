"""Subtracts the max of the whole array, not along axis: a row far below that max underflows to 0 / 0.
Subtract each slice's own max, taken along axis with keepdims=True."""

import jax.numpy as jnp


def softmax(x, axis=-1):
    e = jnp.exp(x - jnp.max(x))
    return e / jnp.sum(e, axis=axis, keepdims=True)
