"""Uses the stable formula without jax.custom_jvp, and autodiff of it gives slope 0 at x = 0, not 0.5.
Decorate it with jax.custom_jvp and give sigmoid(x) as the derivative."""

import jax.numpy as jnp


def softplus(x):
    return jnp.maximum(x, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(x)))
