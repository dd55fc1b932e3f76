"""Returns zero arrays shaped like g as the cotangents of lo and hi, instead of None: a bound is a
scalar, so its cotangent must be one too, and every gradient raises ValueError."""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, lo, hi):
    return x


def clip_gradient_fwd(x, lo, hi):
    return x, (lo, hi)


def clip_gradient_bwd(residuals, g):
    lo, hi = residuals
    return jnp.clip(g, lo, hi), jnp.zeros_like(g), jnp.zeros_like(g)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
