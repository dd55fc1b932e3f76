"""Builds the Hessian as jax.jacfwd(jax.grad(f)), then multiplies it by v."""

import jax


def hvp(f, x, v):
    return jax.jacfwd(jax.grad(f))(x) @ v
