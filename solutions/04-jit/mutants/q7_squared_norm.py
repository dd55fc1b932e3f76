"""Compares the squared gradient norm with tol, where the question stops on the norm itself. Compare
jnp.linalg.norm(g) with tol."""

import jax.numpy as jnp
from jax import lax


def minimize(grad_fn, x0, lr, tol, max_iter):
    def go_on(state):
        x, n = state
        g = grad_fn(x)
        return (jnp.sum(g * g) >= tol) & (n < max_iter)

    def step(state):
        x, n = state
        return x - lr * grad_fn(x), n + 1

    return lax.while_loop(go_on, step, (x0, jnp.int32(0)))
