"""Cuts the data into batches in its original order, without shuffling. Permute the examples with
jax.random.permutation(key, N) first."""


def shuffle_batches(key, X, y, batch_size):
    k = X.shape[0] // batch_size
    n = k * batch_size
    return X[:n].reshape(k, batch_size, *X.shape[1:]), y[:n].reshape(k, batch_size, *y.shape[1:])
