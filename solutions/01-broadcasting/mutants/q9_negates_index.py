"""Tests a negative index as -idx <= n: right for every int32 but the smallest, where -idx overflows
back to -2**31 and the index passes as in range. Compare idx itself with -n, which cannot overflow."""

import jax.numpy as jnp


def take_or_fill(x, idx, fill):
    n = x.shape[0]
    in_range = jnp.where(idx < 0, -idx <= n, idx < n)
    return jnp.where(in_range, x[idx], fill)
