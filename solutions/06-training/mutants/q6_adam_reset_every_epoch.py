"""Calls adam_init inside the epoch loop, so Adam's moments and step count restart every epoch.
Initialise the optimiser state once, before the loop."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch: the notebook's own
import jax
import jax.numpy as jnp


def fit(key, n_epochs, batch_size, lr, sizes):
    k_data, k_test, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    params = init_params(k_init, sizes)
    losses = []
    for epoch in range(n_epochs):
        opt_state = adam_init(params)
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses)
