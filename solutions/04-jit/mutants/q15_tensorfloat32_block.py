"""Wraps the products in jax.default_matmul_precision("tensorfloat32"), taking TF32 for full
float32: it is the fast level (precision HIGH), not the exact one."""

import jax
import jax.numpy as jnp


def predict_full_precision(params, x):
    with jax.default_matmul_precision("tensorfloat32"):
        for layer in params[:-1]:
            x = jnp.tanh(x @ layer["W"] + layer["b"])
        return x @ params[-1]["W"] + params[-1]["b"]
