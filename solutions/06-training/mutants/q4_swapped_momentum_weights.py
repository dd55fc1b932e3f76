"""Swaps the weights of the running average: m = (1 - b1) m + b1 g (and likewise for v). The old
average keeps the weight b1: m = b1 m + (1 - b1) g."""

import jax
import jax.numpy as jnp


def adam_init(params):
    return {
        "m": jax.tree.map(jnp.zeros_like, params),
        "v": jax.tree.map(jnp.zeros_like, params),
        "t": jnp.int32(0),
    }


def adam_update(grads, state, params, lr, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = jax.tree.map(lambda m, g: (1 - b1) * m + b1 * g, state["m"], grads)
    v = jax.tree.map(lambda v, g: (1 - b2) * v + b2 * g**2, state["v"], grads)
    new = jax.tree.map(
        lambda p, m, v: p - lr * (m / (1 - b1**t)) / (jnp.sqrt(v / (1 - b2**t)) + eps), params, m, v
    )
    return new, {"m": m, "v": v, "t": t}
