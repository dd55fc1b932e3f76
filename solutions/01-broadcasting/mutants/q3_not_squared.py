"""Returns distances (square root taken) instead of squared distances."""

import jax.numpy as jnp


def pairwise_sq_dists(X, Y):
    return jnp.sqrt(jnp.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1))
