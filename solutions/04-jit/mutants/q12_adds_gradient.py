"""Adds the gradient instead of subtracting it: a step uphill."""

import jax


def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p + lr * g, params, grads)
