"""Wraps the step in shard_map and differentiates lax.psum of the shard losses instead of lax.pmean:
the loss and the gradient are n_devices times the full-batch ones (invisible on one device). Average
with lax.pmean."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def _local_step(params, x, y, lr):
    total = lambda p: lax.psum(mse_loss(p, x, y), axis_name="batch")  # noqa: E731
    loss, grads = jax.value_and_grad(total)(params)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


def sharded_train_step(params, x, y, lr):
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    step = jax.shard_map(_local_step, mesh=mesh, in_specs=(P(), P("batch"), P("batch"), P()), out_specs=P())
    return jax.jit(step)(params, x, y, lr)
