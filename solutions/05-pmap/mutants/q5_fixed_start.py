"""Starts every run from w = 1, b = 0 instead of drawing them from the key: the loss still
decreases and the line is still found, but the run is not the one asked for."""

# ruff: noqa: F821 - train_step, replicate, shard, unreplicate: the notebook's own
import jax
import jax.numpy as jnp


def train(key, x, y, n_steps, lr):
    params = {"w": jnp.float32(1.0), "b": jnp.float32(0.0)}
    n = jax.local_device_count()
    params, x, y = replicate(params, n), shard(x, n), shard(y, n)
    losses = []
    for _ in range(n_steps):
        params, loss = train_step(params, x, y, lr)
        losses.append(loss[0])
    return unreplicate(params), jnp.stack(losses)
