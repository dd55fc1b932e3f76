"""Passes preferred_element_type=jnp.float32, which sets the result's type, not the precision of
the product."""

import jax.numpy as jnp


def predict_full_precision(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(jnp.matmul(x, layer["W"], preferred_element_type=jnp.float32) + layer["b"])
    return jnp.matmul(x, params[-1]["W"], preferred_element_type=jnp.float32) + params[-1]["b"]
