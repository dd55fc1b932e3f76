"""Widens to int8, which holds only -128 to 127: pixels above 127 wrap to negative numbers, and the
bound 255 of the clip wraps to -1 too. Widen to a type that holds -255 to 510, such as int16 or
int32."""

import jax.numpy as jnp


def brighten(img, delta):
    return jnp.clip(img.astype(jnp.int8) + delta, 0, 255).astype(jnp.uint8)
