"""Relies on checkify's automatic nan checks, but log(0) = -inf is not a nan, so 0 passes. Add
checkify.check(jnp.all(x > 0), ...)."""

import jax.numpy as jnp
from jax.experimental import checkify

checked_log = checkify.checkify(jnp.log, errors=checkify.float_checks)
