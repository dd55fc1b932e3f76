"""Builds the whole Jacobian with jax.jacfwd and multiplies it by v, where one jvp gives J @ v
directly. Return the tangent output of jax.jvp(f, (x,), (v,))."""

import jax


def directional_derivative(f, x, v):
    return jax.jacfwd(f)(x) @ v
