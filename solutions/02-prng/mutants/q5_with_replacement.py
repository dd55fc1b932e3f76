"""Samples indices with replacement (randint), so some examples repeat and others are missed. Use one
permutation of all N indices."""

import jax


def shuffle_batches(key, X, y, batch_size):
    k = X.shape[0] // batch_size
    idx = jax.random.randint(key, (k, batch_size), 0, X.shape[0])
    return X[idx], y[idx]
