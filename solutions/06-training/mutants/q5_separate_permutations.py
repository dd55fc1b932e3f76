"""Shuffles x and y with two different permutations (a split of the key each), so the pairs (x, y) are
torn apart and the model learns noise. Index both with one permutation."""

# ruff: noqa: F821 - mse_loss, adam_update: the notebook's own
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnames="batch_size")
def train_epoch(params, opt_state, key, x, y, batch_size, lr):
    n_batches = x.shape[0] // batch_size
    kx, ky = jax.random.split(key)
    ix = jax.random.permutation(kx, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)
    iy = jax.random.permutation(ky, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)

    def step(carry, batch):
        loss, grads = jax.value_and_grad(mse_loss)(carry[0], *batch)
        return adam_update(grads, carry[1], carry[0], lr), loss

    (params, opt_state), losses = lax.scan(step, (params, opt_state), (x[ix], y[iy]))
    return params, opt_state, jnp.mean(losses)
