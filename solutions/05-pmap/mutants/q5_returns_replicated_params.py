"""Forgets to unreplicate, so it returns params with the leading device axis, (n_devices,) per leaf.
Unreplicate before returning."""

# ruff: noqa: F821 - shard, replicate, train_step: the notebook's own
import jax
import jax.numpy as jnp


def train(key, x, y, n_steps, lr):
    key_w, key_b = jax.random.split(key)
    params = {"w": jax.random.normal(key_w), "b": jax.random.normal(key_b)}
    n = jax.local_device_count()
    params, x, y = replicate(params, n), shard(x, n), shard(y, n)
    losses = []
    for _ in range(n_steps):
        params, loss = train_step(params, x, y, lr)
        losses.append(loss[0])
    return params, jnp.stack(losses)
