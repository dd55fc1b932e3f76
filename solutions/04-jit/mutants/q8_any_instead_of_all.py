"""Checks that some entry is positive instead of all of them."""

import jax.numpy as jnp
from jax.experimental import checkify


def checked_log(x):
    checkify.check(jnp.any(x > 0), "checked_log needs x > 0")
    return jnp.log(x)


checked_log = checkify.checkify(checked_log)
