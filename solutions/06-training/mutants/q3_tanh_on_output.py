"""Applies tanh after the last layer too, so the output is squashed into (-1, 1). Leave the last layer
linear."""

import jax.numpy as jnp


def predict(params, x):
    for layer in params:
        x = jnp.tanh(x @ layer["W"] + layer["b"])
    return x
