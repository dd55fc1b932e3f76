"""Clips every entry of each example's gradient to [-max_norm, max_norm] (value clipping), not the
gradient's norm: its direction changes, and its norm can still be far above max_norm."""

import jax
import jax.numpy as jnp


def clipped_mean_grad(loss, params, xs, ys, max_norm):
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    return jax.tree.map(lambda leaf: jnp.mean(jnp.clip(leaf, -max_norm, max_norm), axis=0), grads)
