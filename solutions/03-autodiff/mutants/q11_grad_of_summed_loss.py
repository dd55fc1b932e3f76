"""Differentiates the batch's summed loss: one gradient shaped like params, with no batch axis,
the sum of the per-example gradients instead of each of them."""

import jax
import jax.numpy as jnp


def per_example_grads(loss, params, xs, ys):
    def summed(params):
        return jnp.sum(jax.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

    return jax.grad(summed)(params)
