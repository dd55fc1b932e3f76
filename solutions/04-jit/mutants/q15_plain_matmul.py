"""Writes x @ W: the default precision, exact on a CPU, TF32 or bfloat16 on an accelerator."""

import jax.numpy as jnp


def predict_full_precision(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["W"] + layer["b"])
    return x @ params[-1]["W"] + params[-1]["b"]
