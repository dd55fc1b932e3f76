"""Unpacks split(key, 4) in another order (k_init first): a valid run, but not the one asked for, so it
cannot be checked. Unpack k_data, k_test, k_init, k_train in that order."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch: the notebook's own
import jax
import jax.numpy as jnp


def fit(key, n_epochs, batch_size, lr, sizes):
    k_init, k_data, k_test, k_train = jax.random.split(key, 4)
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
