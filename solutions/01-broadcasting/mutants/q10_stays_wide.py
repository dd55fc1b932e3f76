"""Saturates in a wider integer type, as it should, but returns that wide result: the image is no
longer uint8. Convert the clipped result back to uint8."""

import jax.numpy as jnp


def brighten(img, delta):
    return jnp.clip(img.astype(jnp.int16) + delta, 0, 255)
