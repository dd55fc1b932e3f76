"""Takes lax.pmean of the local gradients inside shard_map, the pmap habit: shard_map has already
summed the gradient of the P() params over the devices, so it is n_devices times too long (clipping
hides it only when it acts). Take the gradient of the pmean'd loss instead."""

# ruff: noqa: F821 - mse_loss, batch_mesh: the notebook's own
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

SPECS = {"in_specs": (P(), P("batch"), P("batch"), P(), P()), "out_specs": P()}


def _per_device(params, x, y, lr, max_norm):
    loss, grads = lax.pmean(jax.value_and_grad(mse_loss)(params, x, y), axis_name="batch")
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / norm)
    return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss


def clipped_train_step(params, x, y, lr, max_norm):
    params = jax.sharding.reshard(params, NamedSharding(batch_mesh, P()))
    x, y = jax.sharding.reshard((x, y), NamedSharding(batch_mesh, P("batch")))
    step = jax.shard_map(_per_device, mesh=batch_mesh, **SPECS)
    return jax.jit(step)(params, x, y, lr, max_norm)
