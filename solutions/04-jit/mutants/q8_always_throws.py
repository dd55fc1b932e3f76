"""Checks a condition that never holds (x > 1e9 for every entry), so err.throw() raises for every
input, the positive ones included. Check x > 0."""

import jax.numpy as jnp
from jax.experimental import checkify


def checked_log(x):
    checkify.check(jnp.all(x > 1e9), "checked_log needs x > 0")
    return jnp.log(x)


checked_log = checkify.checkify(checked_log)
