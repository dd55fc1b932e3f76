"""Gathers every row onto every device with lax.all_gather and sums them there: the numbers are
right, but each device receives the whole array instead of one number from each device (no
lax.psum)."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def global_normalize(x):
    mesh = jax.make_mesh((x.shape[0],), ("i",))
    x = jax.sharding.reshard(x, NamedSharding(mesh, P("i")))
    normalize = lambda v: v / jnp.sum(lax.all_gather(v, "i"))  # noqa: E731
    return jax.shard_map(normalize, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
