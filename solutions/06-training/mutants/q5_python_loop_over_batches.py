"""Loops over the batches in Python inside the jitted epoch: the loop is unrolled, so the program (and
its compile time) grows with the number of batches. Run the step over the batches with lax.scan."""

# ruff: noqa: F821 - mse_loss, adam_update: the notebook's own
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="batch_size")
def train_epoch(params, opt_state, key, x, y, batch_size, lr):
    n_batches = x.shape[0] // batch_size
    idx = jax.random.permutation(key, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)
    losses = []
    for i in range(n_batches):
        loss, grads = jax.value_and_grad(mse_loss)(params, x[idx[i]], y[idx[i]])
        params, opt_state = adam_update(grads, opt_state, params, lr)
        losses.append(loss)
    return params, opt_state, jnp.mean(jnp.stack(losses))
