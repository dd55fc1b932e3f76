"""Clips each leaf of each example's gradient by that leaf's own norm, not by the global norm of
all the leaves together: the example's whole gradient can still be sqrt(L) times max_norm."""

import jax
import jax.numpy as jnp


def clipped_mean_grad(loss, params, xs, ys, max_norm):
    def clipped(x, y):
        g = jax.grad(loss)(params, x, y)
        return jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / jnp.linalg.norm(leaf)), g)

    return jax.tree.map(lambda leaf: jnp.mean(leaf, axis=0), jax.vmap(clipped)(xs, ys))
