"""Jits the epoch without declaring batch_size static, so the batch shapes depend on a traced value and
the epoch cannot be traced at all. Mark batch_size static."""

# ruff: noqa: F821 - mse_loss, adam_update: the notebook's own
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def train_epoch(params, opt_state, key, x, y, batch_size, lr):
    n_batches = x.shape[0] // batch_size
    idx = jax.random.permutation(key, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)

    def step(carry, batch):
        loss, grads = jax.value_and_grad(mse_loss)(carry[0], *batch)
        return adam_update(grads, carry[1], carry[0], lr), loss

    (params, opt_state), losses = lax.scan(step, (params, opt_state), (x[idx], y[idx]))
    return params, opt_state, jnp.mean(losses)
