"""Uses jax.grad(f)(x) @ v, which only works for a scalar f and is a reverse pass, not a jvp. Return
the tangent output of jax.jvp(f, (x,), (v,))."""

import jax


def directional_derivative(f, x, v):
    return jax.grad(f)(x) @ v
