"""Flattens in column-major (Fortran) order instead of row-major."""

import jax.numpy as jnp


def flatten(x):
    return jnp.ravel(x, order="F")
