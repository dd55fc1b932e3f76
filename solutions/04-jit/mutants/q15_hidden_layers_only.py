"""Sets precision=HIGHEST in the loop over the hidden layers and forgets the last, linear one."""

import jax.numpy as jnp
from jax import lax


def predict_full_precision(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(jnp.matmul(x, layer["W"], precision=lax.Precision.HIGHEST) + layer["b"])
    return x @ params[-1]["W"] + params[-1]["b"]
