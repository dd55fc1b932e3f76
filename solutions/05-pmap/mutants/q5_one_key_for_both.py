"""Draws w and b from the same key, so they start equal, instead of splitting the key."""

# ruff: noqa: F821 - shard, replicate, unreplicate, train_step: the notebook's own
import jax
import jax.numpy as jnp


def train(key, x, y, n_steps, lr):
    params = {"w": jax.random.normal(key), "b": jax.random.normal(key)}
    n = jax.local_device_count()
    params, x, y = replicate(params, n), shard(x, n), shard(y, n)
    losses = []
    for _ in range(n_steps):
        params, loss = train_step(params, x, y, lr)
        losses.append(loss[0])
    return unreplicate(params), jnp.stack(losses)
