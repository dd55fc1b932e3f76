"""Copies the tutorial's LEARNING_RATE = 0.005 into the loop and ignores the lr argument. Step with lr."""

# ruff: noqa: F821 - shard, replicate, unreplicate, train_step: the notebook's own
import jax
import jax.numpy as jnp

LEARNING_RATE = 0.005


def train(key, x, y, n_steps, lr):
    key_w, key_b = jax.random.split(key)
    params = {"w": jax.random.normal(key_w), "b": jax.random.normal(key_b)}
    n = jax.local_device_count()
    params, x, y = replicate(params, n), shard(x, n), shard(y, n)
    losses = []
    for _ in range(n_steps):
        params, loss = train_step(params, x, y, LEARNING_RATE)
        losses.append(loss[0])
    return unreplicate(params), jnp.stack(losses)
