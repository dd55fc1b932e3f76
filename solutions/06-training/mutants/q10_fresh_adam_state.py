"""Resumes from the checkpoint's params but starts Adam again from adam_init: m, v and the step count t
that the bias correction divides by are lost, and the run drifts from the one never stopped. Load
the optimiser state with the params."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, train_epoch, load_checkpoint: the notebook's own
import jax
import jax.numpy as jnp


def resume_fit(key, path, n_epochs, batch_size, lr, sizes):
    k_data, _, k_init, k_train = jax.random.split(key, 4)
    x, y = make_dataset(k_data, 1024)
    like = init_params(k_init, sizes)
    (params, _), done = load_checkpoint(path, (like, adam_init(like)))
    opt_state = adam_init(params)
    losses = []
    for epoch in range(done, n_epochs):
        params, opt_state, loss = train_epoch(
            params, opt_state, jax.random.fold_in(k_train, epoch), x, y, batch_size, lr
        )
        losses.append(loss)
    return params, jnp.stack(losses) if losses else jnp.zeros((0,), jnp.float32)
