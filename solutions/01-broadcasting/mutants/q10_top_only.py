"""Saturates at 255 only: a negative delta takes dark pixels below 0, and converting back to uint8
wraps them around (5 - 10 becomes 251). Clip at 0 as well as at 255."""

import jax.numpy as jnp


def brighten(img, delta):
    return jnp.minimum(img.astype(jnp.int16) + delta, 255).astype(jnp.uint8)
