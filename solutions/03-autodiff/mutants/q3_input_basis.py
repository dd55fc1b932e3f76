"""Vmaps the pullback over the input basis eye(n) instead of the output basis eye(m)."""

import jax
import jax.numpy as jnp


def jacobian_rev(f, x):
    _, pullback = jax.vjp(f, x)
    return jax.vmap(pullback)(jnp.eye(x.size, dtype=x.dtype))[0]
