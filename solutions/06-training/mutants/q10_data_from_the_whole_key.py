"""Makes the data from the whole key, make_dataset(key, 1024), instead of from k_data as fit does:
the resumed epochs train on other data."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch, load_checkpoint: the notebook's own
import jax
import jax.numpy as jnp


def resume_fit(key, path, n_epochs, batch_size, lr, sizes):
    _, _, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(key, 1024)
    like = init_params(k_init, sizes)
    (params, opt_state), done = load_checkpoint(path, (like, adam_init(like)))
    losses = []
    for epoch in range(done, n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses) if losses else jnp.zeros((0,), jnp.float32)
