"""Jits the full-batch step with no sharding: the numbers are right, but the whole step runs on one
device. Place the batch with a NamedSharding over the mesh so that the step is split."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax


@jax.jit
def sharded_train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss
