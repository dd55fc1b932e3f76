"""Builds the columns with a Python loop of jvps instead of vmapping one jvp."""

import jax
import jax.numpy as jnp


def jacobian_fwd(f, x):
    basis = jnp.eye(x.size, dtype=x.dtype)
    columns = [jax.jvp(f, (x,), (basis[j],))[1] for j in range(x.size)]
    return jnp.stack(columns, axis=1)
