"""Shuffles X and y with two different permutations, so inputs lose their labels. Draw one permutation
and index both with it."""

import jax


def shuffle_batches(key, X, y, batch_size):
    key_x, key_y = jax.random.split(key)
    k = X.shape[0] // batch_size
    Xs = jax.random.permutation(key_x, X)[: k * batch_size]
    ys = jax.random.permutation(key_y, y)[: k * batch_size]
    return Xs.reshape(k, batch_size, *X.shape[1:]), ys.reshape(k, batch_size, *y.shape[1:])
