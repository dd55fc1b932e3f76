"""Uses ReLU for the hidden layers instead of tanh."""

import jax


def predict(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["W"] + layer["b"])
    return x @ params[-1]["W"] + params[-1]["b"]
