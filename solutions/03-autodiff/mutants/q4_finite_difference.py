"""Approximates H @ v by a finite difference of gradients, which loses digits in float32. Take the jvp
of jax.grad(f) along v: exact, forward-over-reverse."""

import jax


def hvp(f, x, v):
    eps = 1e-3
    return (jax.grad(f)(x + eps * v) - jax.grad(f)(x)) / eps
