"""Clips the uint8 sum to [0, 255]: too late, the sum has already wrapped around (250 + 10 is 4 before
the clip sees it). Widen the image to a larger integer type first, then add, clip and convert back
to uint8."""

import jax.numpy as jnp


def brighten(img, delta):
    return jnp.clip(img + delta, 0, 255)
