"""Replicates with a dict comprehension over the top level instead of jax.tree.map: a nested
list, tuple or dict is handed to jnp.stack whole and fails."""

import jax.numpy as jnp


def replicate(tree, n_devices):
    return {k: jnp.stack([v] * n_devices) for k, v in tree.items()}
