"""Asks for dtype=jnp.float64 with 64-bit mode off: JAX warns and makes float32 arrays anyway."""

import jax.numpy as jnp


def solve_in_float64(A, b):
    return jnp.linalg.solve(jnp.asarray(A, dtype=jnp.float64), jnp.asarray(b, dtype=jnp.float64))
