"""Forgets nondiff_argnums: JAX calls bwd(residuals, g) without lo and hi, so every gradient raises.
Declare nondiff_argnums=(1, 2), or save the bounds as residuals."""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, lo, hi):
    return x


def clip_gradient_fwd(x, lo, hi):
    return x, None


def clip_gradient_bwd(lo, hi, residuals, g):
    return (jnp.clip(g, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
