"""Takes the saved count for the index of the last epoch done and starts at k + 1, so epoch k is
skipped and there is one call too few. The count is the number of epochs done: start at epoch k."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch, load_checkpoint: the notebook's own
import jax
import jax.numpy as jnp


def resume_fit(key, path, n_epochs, batch_size, lr, sizes):
    k_data, _, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    like = init_params(k_init, sizes)
    (params, opt_state), last_done = load_checkpoint(path, (like, adam_init(like)))
    losses = []
    for epoch in range(last_done + 1, n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses) if losses else jnp.zeros((0,), jnp.float32)
