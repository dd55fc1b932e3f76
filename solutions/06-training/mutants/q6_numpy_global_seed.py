"""Draws each epoch's shuffling seed from NumPy's global generator, so the run no longer depends on the
key alone. Shuffle epoch e with fold_in(k_train, e)."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch: the notebook's own
import jax
import jax.numpy as jnp
import numpy as np


def fit(key, n_epochs, batch_size, lr, sizes):
    k_data, k_test, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    params = init_params(k_init, sizes)
    opt_state = adam_init(params)
    losses = []
    for _ in range(n_epochs):
        epoch_key = jax.random.key(int(np.random.randint(2**31 - 1)))
        params, opt_state, loss = train_epoch(params, opt_state, epoch_key, x, y, batch_size, lr)
        losses.append(loss)
    return params, jnp.stack(losses)
