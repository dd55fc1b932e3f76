"""Places the data with device_put on a mesh with Auto axes: the step runs on every device with
the right numbers, but the sharding is not in the type (jax.typeof shows float32[N,1]) and the
results do not live on an Explicit mesh: the habit q7 asks for is Explicit sharding."""

# ruff: noqa: F821 - full_batch_step: the notebook's own
import jax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def sharded_train_step(params, x, y, lr):
    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Auto,))
    params = jax.device_put(params, NamedSharding(mesh, P()))
    x, y = jax.device_put((x, y), NamedSharding(mesh, P("batch")))
    return full_batch_step(params, x, y, lr)
