"""Clips the full-batch gradient correctly, but with jax.jit of single-device code on one device
(no mesh, no shard_map): the numbers are right and nothing runs in parallel."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
import jax.numpy as jnp


@jax.jit
def clipped_train_step(params, x, y, lr, max_norm):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / norm)
    return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss
