"""Saves x as the residual and returns x clipped to [lo, hi] as its cotangent, not the clipped g. Clip
the incoming cotangent g."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def clip_gradient(x, lo, hi):
    return x


def clip_gradient_fwd(x, lo, hi):
    return x, x


def clip_gradient_bwd(lo, hi, x, g):
    return (jnp.clip(x, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
