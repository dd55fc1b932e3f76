"""Calls jax.nn.softplus instead of writing a custom_jvp function."""

import jax


def softplus(x):
    return jax.nn.softplus(x)
