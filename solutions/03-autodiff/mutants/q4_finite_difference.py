"""Approximates H @ v by a finite difference of gradients, which loses digits in float32."""

import jax


def hvp(f, x, v):
    eps = 1e-3
    return (jax.grad(f)(x + eps * v) - jax.grad(f)(x)) / eps
