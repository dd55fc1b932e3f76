"""Averages the per-example gradients first and clips the mean to max_norm: ordinary global-norm
clipping, which bounds the step but lets one example with a huge gradient set its direction."""

import jax
import jax.numpy as jnp


def clipped_mean_grad(loss, params, xs, ys, max_norm):
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    mean = jax.tree.map(lambda leaf: jnp.mean(leaf, axis=0), grads)
    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(mean)))
    return jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), mean)
