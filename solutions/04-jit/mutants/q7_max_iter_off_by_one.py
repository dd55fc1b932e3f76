"""Tests n <= max_iter, so it makes one update too many. Continue while n < max_iter."""

import jax.numpy as jnp
from jax import lax


def minimize(grad_fn, x0, lr, tol, max_iter):
    def go_on(state):
        x, n = state
        return (jnp.linalg.norm(grad_fn(x)) >= tol) & (n <= max_iter)

    def step(state):
        x, n = state
        return x - lr * grad_fn(x), n + 1

    return lax.while_loop(go_on, step, (x0, jnp.int32(0)))
