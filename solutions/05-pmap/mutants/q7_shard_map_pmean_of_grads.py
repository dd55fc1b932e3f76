"""Wraps the step in shard_map with the pmap habit lax.pmean(grads): the gradient of the replicated
(P()) params already comes back summed over the devices, so the step is n_devices times too large
(invisible on one device). Differentiate the pmean of the loss instead."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def _local_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    grads = lax.pmean(grads, axis_name="batch")
    loss = lax.pmean(loss, axis_name="batch")
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


def sharded_train_step(params, x, y, lr):
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    step = jax.shard_map(_local_step, mesh=mesh, in_specs=(P(), P("batch"), P("batch"), P()), out_specs=P())
    return jax.jit(step)(params, x, y, lr)
