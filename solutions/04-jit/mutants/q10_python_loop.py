"""Loops over the time steps in Python: unrolled while tracing, the jaxpr grows with T. Write the step
as a function and run it with lax.scan."""

import jax.numpy as jnp


def rnn(params, xs, h0):
    h, hs = h0, []
    for x in xs:
        h = jnp.tanh(x @ params["Wx"] + h @ params["Wh"] + params["b"])
        hs.append(h)
    return h, jnp.stack(hs)
