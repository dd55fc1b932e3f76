"""Builds the mesh from the first two devices (as on a 2-GPU laptop) instead of all of them."""

# ruff: noqa: F821 - train_epoch: the notebook's own
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


def train_epoch_sharded(params, opt_state, key, x, y, batch_size, lr):
    mesh = Mesh(np.array(jax.devices()[:2]), ("batch",))
    x = jax.device_put(x, NamedSharding(mesh, P("batch")))
    y = jax.device_put(y, NamedSharding(mesh, P("batch")))
    params, opt_state = jax.device_put((params, opt_state), NamedSharding(mesh, P()))
    return train_epoch(params, opt_state, key, x, y, batch_size, lr)
