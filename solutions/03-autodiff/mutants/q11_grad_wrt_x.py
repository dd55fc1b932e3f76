"""Differentiates with respect to the example x (argnums=1) instead of params: an array shaped
like xs, the input gradients, not a pytree shaped like params."""

import jax


def per_example_grads(loss, params, xs, ys):
    return jax.vmap(jax.grad(loss, argnums=1), in_axes=(None, 0, 0))(params, xs, ys)
