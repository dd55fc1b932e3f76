"""Clips the forward value to [lo, hi] as well as the cotangent, so the output is no longer x. Return x
unchanged on the way forward."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def clip_gradient(x, lo, hi):
    return jnp.clip(x, lo, hi)


def clip_gradient_fwd(x, lo, hi):
    return jnp.clip(x, lo, hi), None


def clip_gradient_bwd(lo, hi, residuals, g):
    return (jnp.clip(g, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
