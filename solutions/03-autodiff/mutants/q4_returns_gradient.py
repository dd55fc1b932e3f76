"""Takes the primal output of the jvp of grad(f), which is the gradient, not H @ v. Return the tangent
output."""

import jax


def hvp(f, x, v):
    return jax.jvp(jax.grad(f), (x,), (v,))[0]
