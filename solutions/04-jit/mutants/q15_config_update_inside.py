"""Calls jax.config.update("jax_default_matmul_precision", "highest") inside the function: it
changes the whole program's default, and a default_matmul_precision context in force (the
caller's) still wins over it."""

import jax
import jax.numpy as jnp


def predict_full_precision(params, x):
    jax.config.update("jax_default_matmul_precision", "highest")
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["W"] + layer["b"])
    return x @ params[-1]["W"] + params[-1]["b"]
