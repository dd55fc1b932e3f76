"""Loops with a Python while on the gradient norm, which calls bool() on a tracer under jit. Use
lax.while_loop."""

import jax.numpy as jnp


def minimize(grad_fn, x0, lr, tol, max_iter):
    x, n = x0, 0
    while jnp.linalg.norm(grad_fn(x)) >= tol and n < max_iter:
        x, n = x - lr * grad_fn(x), n + 1
    return x, jnp.int32(n)
