"""Saves the bounds as (hi, lo) but unpacks them as lo, hi, so jnp.clip(g, hi, lo) gives lo for every
entry. Unpack the residuals in the order you saved them."""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, lo, hi):
    return x


def clip_gradient_fwd(x, lo, hi):
    return x, (hi, lo)


def clip_gradient_bwd(residuals, g):
    lo, hi = residuals
    return jnp.clip(g, lo, hi), None, None


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
