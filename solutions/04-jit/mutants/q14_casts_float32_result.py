"""Solves in float32 and converts the solution to float64 inside the block: the dtype is
float64, the digits are float32's (none, for an ill-conditioned system)."""

import jax
import jax.numpy as jnp
import numpy as np


def solve_in_float64(A, b):
    x = jnp.linalg.solve(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32))
    with jax.enable_x64(True):
        return jnp.asarray(np.asarray(x), jnp.float64)
