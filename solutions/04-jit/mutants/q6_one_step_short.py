"""Runs the loop from 1, one Newton step short. Run it over range(0, iters): exactly iters steps."""

from jax import lax


def newton_sqrt(a, iters):
    return lax.fori_loop(1, iters, lambda i, x: (x + a / x) / 2, a)
