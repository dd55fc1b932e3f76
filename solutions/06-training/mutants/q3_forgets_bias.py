"""Forgets the biases: x @ W only. Add b in every layer."""

import jax.numpy as jnp


def predict(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["W"])
    return x @ params[-1]["W"]
