"""Broadcasts each leaf by multiplying with jnp.ones((n, ...)): the shapes are right, but integer
leaves come back float32."""

import jax
import jax.numpy as jnp


def replicate(tree, n_devices):
    return jax.tree.map(lambda leaf: jnp.ones((n_devices, *jnp.shape(leaf))) * leaf, tree)
