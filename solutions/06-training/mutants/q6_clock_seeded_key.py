"""Seeds the training key from the clock (a fresh key every run), so two runs with the same key shuffle
differently. Derive every key from the key you are given."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch: the notebook's own
import time

import jax
import jax.numpy as jnp


def fit(key, n_epochs, batch_size, lr, sizes):
    k_data, k_test, k_init, _ = jax.random.split(key, 4)
    k_train = jax.random.key(time.time_ns() % 2**31)
    x, y = make_dataset(k_data, 1024)
    params = init_params(k_init, sizes)
    opt_state = adam_init(params)
    losses = []
    for epoch in range(n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses)
