"""Clips with g / norm * min(norm, max_norm): the right numbers wherever the gradient is not
zero, and 0 / 0 = nan for an example whose gradient is exactly zero, which poisons the mean."""

import jax
import jax.numpy as jnp


def clipped_mean_grad(loss, params, xs, ys, max_norm):
    def clipped(x, y):
        g = jax.grad(loss)(params, x, y)
        norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(g)))
        return jax.tree.map(lambda leaf: leaf / norm * jnp.minimum(norm, max_norm), g)

    return jax.tree.map(lambda leaf: jnp.mean(leaf, axis=0), jax.vmap(clipped)(xs, ys))
