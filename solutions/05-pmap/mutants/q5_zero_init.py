"""Starts from w = b = 0 and never uses the key. Draw w and b from split(key), as the seed does."""

# ruff: noqa: F821 - shard, replicate, unreplicate, train_step: the notebook's own
import jax
import jax.numpy as jnp


def train(key, x, y, n_steps, lr):
    params = {"w": jnp.float32(0.0), "b": jnp.float32(0.0)}
    n = jax.local_device_count()
    params, x, y = replicate(params, n), shard(x, n), shard(y, n)
    losses = []
    for _ in range(n_steps):
        params, loss = train_step(params, x, y, lr)
        losses.append(loss[0])
    return unreplicate(params), jnp.stack(losses)
