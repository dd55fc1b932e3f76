"""Makes the JAX arrays before entering `jax.enable_x64`: they are float32 already, and solving
them inside the block solves in float32."""

import jax
import jax.numpy as jnp


def solve_in_float64(A, b):
    A, b = jnp.asarray(A), jnp.asarray(b)
    with jax.enable_x64(True):
        return jnp.linalg.solve(A, b)
