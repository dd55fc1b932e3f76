"""Always runs max_iter iterations with fori_loop, skipping updates once converged: there is no early
exit. Stop with lax.while_loop."""

import jax.numpy as jnp
from jax import lax


def minimize(grad_fn, x0, lr, tol, max_iter):
    def body(i, state):
        x, n = state
        g = grad_fn(x)
        go = jnp.linalg.norm(g) >= tol
        return jnp.where(go, x - lr * g, x), n + go.astype(jnp.int32)

    return lax.fori_loop(0, max_iter, body, (x0, jnp.int32(0)))
