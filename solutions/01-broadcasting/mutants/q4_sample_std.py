"""Uses the sample standard deviation (ddof=1) instead of the population one (ddof=0) the question asks
for. Use the default ddof=0."""

import jax.numpy as jnp


def standardize(X, axis=0, eps=1e-8):
    mean = jnp.mean(X, axis=axis, keepdims=True)
    std = jnp.std(X, axis=axis, keepdims=True, ddof=1)
    return (X - mean) / (std + eps)
