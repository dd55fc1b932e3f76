"""Writes the derivative as exp(x) / (1 + exp(x)), which is inf / inf = nan at 100. Use
jax.nn.sigmoid(x), which is stable."""

import jax
import jax.numpy as jnp


@jax.custom_jvp
def softplus(x):
    return jnp.maximum(x, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return softplus(x), jnp.exp(x) / (1.0 + jnp.exp(x)) * x_dot
