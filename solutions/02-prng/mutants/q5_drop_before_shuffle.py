"""Drops the remainder before shuffling, so the last N % batch_size examples are never used. Shuffle
all N examples first, then drop the remainder."""

import jax


def shuffle_batches(key, X, y, batch_size):
    k = X.shape[0] // batch_size
    perm = jax.random.permutation(key, k * batch_size)
    return X[perm].reshape(k, batch_size, *X.shape[1:]), y[perm].reshape(k, batch_size, *y.shape[1:])
