"""Averages the loss but not the gradients: each device applies the gradient of its own shard, and the
copies of the parameters drift apart (invisible on one device). Average the gradients with lax.pmean
before the update."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import functools

import jax
from jax import lax


@functools.partial(jax.pmap, axis_name="batch", in_axes=(0, 0, 0, None))
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    loss = lax.pmean(loss, axis_name="batch")
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss
