"""Counts argnums like the data layout (w, x), so it differentiates with respect to w and x, not b. The
arguments are (w, b, x, y): use argnums=(0, 1)."""

import jax


def grad_wrt_w_and_b(loss, w, b, x, y):
    return jax.grad(loss, argnums=(0, 2))(w, b, x, y)
