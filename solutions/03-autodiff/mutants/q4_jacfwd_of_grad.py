"""Builds the Hessian as jax.jacfwd(jax.grad(f)), then multiplies it by v: an n x n array that does not
fit for large n. Take the jvp of jax.grad(f) along v."""

import jax


def hvp(f, x, v):
    return jax.jacfwd(jax.grad(f))(x) @ v
