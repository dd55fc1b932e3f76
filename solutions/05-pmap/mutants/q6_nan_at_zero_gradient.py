"""Scales the gradient by min(norm, max_norm) / norm, which is 0 / 0 = nan at a zero gradient, so a
converged model's params become nan. Scale by min(1, max_norm / norm), or guard the zero."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.pmap, axis_name="batch", in_axes=(0, 0, 0, None, None))
def clipped_train_step(params, x, y, lr, max_norm):
    loss, grads = lax.pmean(jax.value_and_grad(mse_loss)(params, x, y), axis_name="batch")
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(norm, max_norm) / norm
    return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss
