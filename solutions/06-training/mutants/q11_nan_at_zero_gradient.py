"""Clips with g * (min(norm, max_norm) / norm), which is 0 / 0 at a zero gradient, and the nan spreads
through Adam to every parameter. Scale by min(1, max_norm / norm), which is 1 there."""

# ruff: noqa: F821 - mse_loss, adam_update, lr_schedule: the notebook's own
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(
    jax.jit, static_argnames=("batch_size", "warmup", "total"), donate_argnames=("params", "opt_state")
)
def train_epoch_clipped(params, opt_state, key, x, y, batch_size, base_lr, warmup, total, max_norm):
    n_batches = x.shape[0] // batch_size
    perm = jax.random.permutation(key, x.shape[0])
    idx = perm[: n_batches * batch_size].reshape(n_batches, batch_size)

    def step(carry, batch):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(mse_loss)(params, *batch)
        norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
        grads = jax.tree.map(lambda g: g * (jnp.minimum(norm, max_norm) / norm), grads)
        lr = lr_schedule(opt_state["t"], base_lr, warmup, total)
        params, opt_state = adam_update(grads, opt_state, params, lr)
        return (params, opt_state), loss

    (params, opt_state), losses = lax.scan(step, (params, opt_state), (x[idx], y[idx]))
    return params, opt_state, jnp.mean(losses)
