"""Calls checkify.check but never wraps the function with checkify.checkify: it returns a bare array,
not (err, y), and under jit the check raises ValueError (not functionalized). Wrap it:
checkify.checkify(f)."""

import jax.numpy as jnp
from jax.experimental import checkify


def checked_log(x):
    checkify.check(jnp.all(x > 0), "checked_log needs x > 0")
    return jnp.log(x)
