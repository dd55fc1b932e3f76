"""Uses jnp.clip on the value with no custom_vjp: the value is clipped and clipped entries get gradient
0. Leave the value alone and clip the cotangent in a custom_vjp backward rule."""

import jax.numpy as jnp


def clip_gradient(x, lo, hi):
    return jnp.clip(x, lo, hi)
