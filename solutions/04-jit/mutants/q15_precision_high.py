"""Uses Precision.HIGH, which sounds like the top level: on a GPU it runs as TF32, like the
default."""

import jax.numpy as jnp
from jax import lax


def predict_full_precision(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(jnp.matmul(x, layer["W"], precision=lax.Precision.HIGH) + layer["b"])
    return jnp.matmul(x, params[-1]["W"], precision=lax.Precision.HIGH) + params[-1]["b"]
