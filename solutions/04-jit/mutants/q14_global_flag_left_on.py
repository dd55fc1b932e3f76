"""Switches 64-bit mode on with jax.config.update and leaves it on: the solution is right, but
every later array and program of the whole notebook changes to float64 / int64."""

import jax
import jax.numpy as jnp


def solve_in_float64(A, b):
    jax.config.update("jax_enable_x64", True)
    return jnp.linalg.solve(jnp.asarray(A), jnp.asarray(b))
