"""Calls jax.nn.softmax, the library answer."""

import jax


def softmax(x, axis=-1):
    return jax.nn.softmax(x, axis=axis)
