"""Uses no collective at all, and check_vma=False to silence the error that would catch it: every
device steps on its own block, and out_specs=P() hands back device 0's result. Average the loss over
the devices with lax.pmean before differentiating."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P


def shard_map_train_step(params, x, y, lr):
    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Auto,))

    def local_step(params, x, y):
        loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    step = jax.shard_map(
        local_step, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=P(), check_vma=False
    )
    return jax.jit(step)(params, x, y)
