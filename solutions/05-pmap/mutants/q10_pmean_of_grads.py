"""Brings the pmap habit into shard_map, lax.pmean of the local gradients: for the replicated (P())
params shard_map has already summed the gradient over the devices, so the step is n_devices times
too large (invisible on one device). Differentiate the pmean of the loss instead."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
from jax import lax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P


def shard_map_train_step(params, x, y, lr):
    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Auto,))

    def local_step(params, x, y):
        loss, grads = lax.pmean(jax.value_and_grad(mse_loss)(params, x, y), axis_name="batch")
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    step = jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=P())
    return jax.jit(step)(params, x, y)
