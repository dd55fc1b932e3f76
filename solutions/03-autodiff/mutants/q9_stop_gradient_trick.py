"""A stop_gradient trick instead of custom_vjp: the value is about x, but the gradient is that of
clip(x) (1 inside [lo, hi], 0 outside), masked by x instead of clipping the cotangent."""

import jax
import jax.numpy as jnp


def clip_gradient(x, lo, hi):
    clipped = jnp.clip(x, lo, hi)
    return clipped + jax.lax.stop_gradient(x - clipped)
