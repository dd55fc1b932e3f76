"""Reshapes with -1 for the features, which flattens X's trailing axes into one. Reshape to
(num_batches, batch_size, *X.shape[1:])."""

import jax


def shuffle_batches(key, X, y, batch_size):
    k = X.shape[0] // batch_size
    perm = jax.random.permutation(key, X.shape[0])[: k * batch_size]
    return X[perm].reshape(k, batch_size, -1), y[perm].reshape(k, batch_size)
