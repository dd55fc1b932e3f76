"""Returns jnp.round(x) itself, whose gradient is zero everywhere. Return x + stop_gradient(round(x) -
x)."""

import jax.numpy as jnp


def straight_through_round(x):
    return jnp.round(x)
