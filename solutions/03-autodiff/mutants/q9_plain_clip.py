"""Uses jnp.clip on the value, no custom_vjp: the value is clipped and clipped entries get gradient 0."""

import jax.numpy as jnp


def clip_gradient(x, lo, hi):
    return jnp.clip(x, lo, hi)
