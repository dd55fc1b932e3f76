"""Loops over the top-level keys of a dict of arrays instead of using jax.tree.map: fails on
nested pytrees (lists of dicts, tuples)."""

import jax.numpy as jnp


def adam_init(params):
    return {
        "m": {k: jnp.zeros_like(p) for k, p in params.items()},
        "v": {k: jnp.zeros_like(p) for k, p in params.items()},
        "t": jnp.int32(0),
    }


def adam_update(grads, state, params, lr, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: b1 * state["m"][k] + (1 - b1) * grads[k] for k in params}
    v = {k: b2 * state["v"][k] + (1 - b2) * grads[k] ** 2 for k in params}
    new = {k: params[k] - lr * (m[k] / (1 - b1**t)) / (jnp.sqrt(v[k] / (1 - b2**t)) + eps) for k in params}
    return new, {"m": m, "v": v, "t": t}
