"""Builds the mesh with jax.make_mesh and no axis_types, so its axes are Explicit, and hands shard_map
arrays that were never placed on it: shard_map rejects them with a ValueError. Make the mesh with
axis_types=(AxisType.Auto,)."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
from jax import lax
from jax.sharding import PartitionSpec as P


def shard_map_train_step(params, x, y, lr):
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))

    def local_step(params, x, y):
        full_batch_loss = lambda p: lax.pmean(mse_loss(p, x, y), axis_name="batch")  # noqa: E731
        loss, grads = jax.value_and_grad(full_batch_loss)(params)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    step = jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=P())
    return jax.jit(step)(params, x, y)
