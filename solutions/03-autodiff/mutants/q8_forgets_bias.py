"""Leaves b1 out of the forward pass, so the tanh rule sees the wrong activations. Recompute h = tanh(x
@ W1 + b1) with the bias."""

import jax.numpy as jnp


def mlp_vjp(params, x, cotangent):
    h = jnp.tanh(x @ params[0]["W"])
    return params[0]["W"] @ ((params[1]["W"] @ cotangent) * (1 - h**2))
