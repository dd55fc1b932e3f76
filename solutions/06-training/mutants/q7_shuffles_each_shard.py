"""Places x and y over the mesh, then shuffles each device's block on its own (a permutation of the
block, not of the data set), so the batches are not q5's. Permute the whole data set with the key,
as q5 does."""

# ruff: noqa: F821 - mse_loss, adam_update: the notebook's own
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


@functools.partial(jax.jit, static_argnames=("batch_size", "mesh"))
def _epoch(params, opt_state, key, x, y, batch_size, lr, mesh):
    n_dev = mesh.devices.size
    block, per_device = x.shape[0] // n_dev, batch_size // n_dev
    n_batches = block // per_device
    perm = jax.random.permutation(key, block)[: n_batches * per_device].reshape(n_batches, per_device)
    # Device d's examples of batch i are x[d * block + perm[i]]: every block shuffled alike.
    idx = (jnp.arange(n_dev)[None, :, None] * block + perm[:, None, :]).reshape(n_batches, batch_size)
    on_devices = NamedSharding(mesh, P(None, "batch"))
    xb = lax.with_sharding_constraint(x[idx], on_devices)
    yb = lax.with_sharding_constraint(y[idx], on_devices)

    def step(carry, batch):
        loss, grads = jax.value_and_grad(mse_loss)(carry[0], *batch)
        return adam_update(grads, carry[1], carry[0], lr), loss

    (params, opt_state), losses = lax.scan(step, (params, opt_state), (xb, yb))
    return params, opt_state, jnp.mean(losses)


def train_epoch_sharded(params, opt_state, key, x, y, batch_size, lr):
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    x = jax.device_put(x, NamedSharding(mesh, P("batch")))
    y = jax.device_put(y, NamedSharding(mesh, P("batch")))
    params, opt_state = jax.device_put((params, opt_state), NamedSharding(mesh, P()))
    return _epoch(params, opt_state, key, x, y, batch_size, lr, mesh)
