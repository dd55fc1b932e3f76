"""Uses a stop_gradient trick instead of custom_vjp: the gradient is that of clip(x) (1 inside [lo,
hi], 0 outside), masked by x instead of clipping the cotangent. Write the backward rule with
jax.custom_vjp so that it clips the incoming gradient."""

import jax
import jax.numpy as jnp


def clip_gradient(x, lo, hi):
    clipped = jnp.clip(x, lo, hi)
    return clipped + jax.lax.stop_gradient(x - clipped)
