"""Builds the Hessian with jax.hessian, then multiplies it by v."""

import jax


def hvp(f, x, v):
    return jax.hessian(f)(x) @ v
