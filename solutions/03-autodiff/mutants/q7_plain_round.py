"""Returns jnp.round(x) itself, whose gradient is zero everywhere."""

import jax.numpy as jnp


def straight_through_round(x):
    return jnp.round(x)
