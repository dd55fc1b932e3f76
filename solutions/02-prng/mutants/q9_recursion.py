"""Builds the copies by recursion on keys[1:]: no for in the source, but a loop all the same. Use
jax.vmap with in_axes=(0, None, None)."""

import jax
import jax.numpy as jnp


def noisy_copies(keys, x, sigma):
    first = (x + sigma * jax.random.normal(keys[0], x.shape))[None]
    if len(keys) == 1:
        return first
    return jnp.concatenate([first, noisy_copies(keys[1:], x, sigma)])
