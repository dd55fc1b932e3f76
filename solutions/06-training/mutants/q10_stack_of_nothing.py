"""Stacks the epochs' losses with jnp.stack even when there are none: with every epoch done (k ==
n_epochs) the list is empty and jnp.stack raises. Return an empty float32 array when no epoch is
left."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch, load_checkpoint: the notebook's own
import jax
import jax.numpy as jnp


def resume_fit(key, path, n_epochs, batch_size, lr, sizes):
    k_data, _, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    like = init_params(k_init, sizes)
    (params, opt_state), done = load_checkpoint(path, (like, adam_init(like)))
    losses = []
    for epoch in range(done, n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses)
