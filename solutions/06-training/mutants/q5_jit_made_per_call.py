"""Builds a new jax.jit inside the function on every call (closing over batch_size and lr), so each
epoch traces and compiles again. Jit train_epoch once, at its definition."""

# ruff: noqa: F821 - mse_loss, adam_update: the notebook's own
import jax
import jax.numpy as jnp
from jax import lax


def train_epoch(params, opt_state, key, x, y, batch_size, lr):
    def epoch(params, opt_state, key, x, y):
        n_batches = x.shape[0] // batch_size
        idx = jax.random.permutation(key, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)

        def step(carry, batch):
            loss, grads = jax.value_and_grad(mse_loss)(carry[0], *batch)
            return adam_update(grads, carry[1], carry[0], lr), loss

        (params, opt_state), losses = lax.scan(step, (params, opt_state), (x[idx], y[idx]))
        return params, opt_state, jnp.mean(losses)

    return jax.jit(epoch)(params, opt_state, key, x, y)
