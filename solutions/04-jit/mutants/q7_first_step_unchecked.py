"""Starts the stored gradient norm at inf, so the first update is never checked. Test the norm of the
gradient at x before every update, the first included."""

import jax.numpy as jnp
from jax import lax


def minimize(grad_fn, x0, lr, tol, max_iter):
    def go_on(state):
        x, norm, n = state
        return (norm >= tol) & (n < max_iter)

    def step(state):
        x, norm, n = state
        g = grad_fn(x)
        return x - lr * g, jnp.linalg.norm(g), n + 1

    x, _, n = lax.while_loop(go_on, step, (x0, jnp.float32(jnp.inf), jnp.int32(0)))
    return x, n
