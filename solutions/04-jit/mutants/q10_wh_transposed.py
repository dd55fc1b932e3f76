"""Multiplies the state on the wrong side, Wh @ h (a column-vector habit), which uses Wh transposed.
With row vectors the step is h @ Wh."""

import jax.numpy as jnp
from jax import lax


def rnn(params, xs, h0):
    def step(h, x):
        h = jnp.tanh(x @ params["Wx"] + params["Wh"] @ h + params["b"])
        return h, h

    return lax.scan(step, h0, xs)
