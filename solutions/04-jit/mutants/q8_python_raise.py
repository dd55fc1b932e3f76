"""Raises with a Python if, which needs the values, so it fails under jit and under checkify. Use
checkify.check."""

import jax.numpy as jnp
from jax.experimental import checkify


def checked_log(x):
    if jnp.any(x <= 0):
        raise ValueError("checked_log needs x > 0")
    return jnp.log(x)


checked_log = checkify.checkify(checked_log)
