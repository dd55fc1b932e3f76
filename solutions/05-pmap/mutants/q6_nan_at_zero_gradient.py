"""Scales the gradient by min(norm, max_norm) / norm, which is 0 / 0 = nan at a zero gradient, so a
converged model's params become nan. Scale by min(1, max_norm / norm), or guard the zero."""

# ruff: noqa: F821 - mse_loss, batch_mesh: the notebook's own
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

SPECS = {"in_specs": (P(), P("batch"), P("batch"), P(), P()), "out_specs": P()}


def _per_device(params, x, y, lr, max_norm):
    loss, grads = jax.value_and_grad(lambda p: lax.pmean(mse_loss(p, x, y), "batch"))(params)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(norm, max_norm) / norm
    return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss


def clipped_train_step(params, x, y, lr, max_norm):
    params = jax.sharding.reshard(params, NamedSharding(batch_mesh, P()))
    x, y = jax.sharding.reshard((x, y), NamedSharding(batch_mesh, P("batch")))
    step = jax.shard_map(_per_device, mesh=batch_mesh, **SPECS)
    return jax.jit(step)(params, x, y, lr, max_norm)
