"""Multiplies the gradient by v elementwise: a first derivative, not H @ v."""

import jax


def hvp(f, x, v):
    return jax.grad(f)(x) * v
