"""Stacks the state from before each step: hs holds h0 ... h_{T-1}, one step behind. Return the new
state as the scan's per-step output."""

import jax.numpy as jnp
from jax import lax


def rnn(params, xs, h0):
    def step(h, x):
        h_new = jnp.tanh(x @ params["Wx"] + h @ params["Wh"] + params["b"])
        return h_new, h

    return lax.scan(step, h0, xs)
