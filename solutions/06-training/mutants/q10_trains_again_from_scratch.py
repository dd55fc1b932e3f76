"""Ignores the checkpoint's state and trains the whole run again from init_params, keeping the last
losses: the numbers are right, but the k epochs already done are paid for twice. Start from the
loaded state at epoch k."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch, load_checkpoint: the notebook's own
import jax
import jax.numpy as jnp


def resume_fit(key, path, n_epochs, batch_size, lr, sizes):
    k_data, _, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    params = init_params(k_init, sizes)
    opt_state = adam_init(params)
    _, done = load_checkpoint(path, (params, opt_state))
    losses = []
    for epoch in range(n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses)[done:]
