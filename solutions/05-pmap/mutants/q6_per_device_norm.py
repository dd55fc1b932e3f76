"""Clips each device's own gradient before averaging: the norm is a per-device one, so the step is not
one clipped full-batch step (invisible on one device). Average the gradients with lax.pmean first,
then clip by their global norm."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.pmap, axis_name="batch", in_axes=(0, 0, 0, None, None))
def clipped_train_step(params, x, y, lr, max_norm):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, max_norm / norm), grads)
    grads = lax.pmean(grads, axis_name="batch")
    loss = lax.pmean(loss, axis_name="batch")
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss
