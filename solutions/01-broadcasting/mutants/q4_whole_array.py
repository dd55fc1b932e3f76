"""Takes the mean and std of the whole array instead of along axis. Pass axis (and keepdims=True) to
both reductions."""

import jax.numpy as jnp


def standardize(X, axis=0, eps=1e-8):
    return (X - jnp.mean(X)) / (jnp.std(X) + eps)
