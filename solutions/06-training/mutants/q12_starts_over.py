"""Ignores its checkpoint: a run started again trains every epoch from the start. Load the
checkpoint when its file exists and go on from its epoch."""

# ruff: noqa: F821 - make_dataset, init_params, adam_init, save_checkpoint, load_checkpoint,
# logged_epoch_on_mesh, evaluate: the notebook's own
import os
import time

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def train_and_evaluate(config):
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    split, replicated = NamedSharding(mesh, P("batch")), NamedSharding(mesh, P())
    key_data, key_test, key_init, key_train = jax.random.split(config["key"], 4)
    x, y = jax.device_put(make_dataset(key_data, 1024), split)
    x_val, y_val = make_dataset(key_test, 256)
    n_epochs, batch_size, path = config["n_epochs"], config["batch_size"], config["checkpoint_path"]
    n_batches = 1024 // batch_size
    params = init_params(key_init, config["sizes"])
    state = {
        "params": params,
        "opt_state": adam_init(params),
        "best_params": jax.tree.map(np.array, params),
        "best_val": np.float32(np.inf),
        "best_epoch": np.int32(-1),
        "history": {
            "train_loss": np.zeros(n_epochs, np.float32),
            "val_mse": np.zeros(n_epochs, np.float32),
            "grad_norm": np.zeros((n_epochs, n_batches), np.float32),
        },
    }
    start = 0
    history = jax.tree.map(np.array, state["history"])
    best_params, best_val, best_epoch = (
        state["best_params"],
        np.float32(state["best_val"]),
        int(state["best_epoch"]),
    )
    params, opt_state = jax.device_put((state["params"], state["opt_state"]), replicated)
    speeds = []
    for epoch in range(start, n_epochs):
        started = time.perf_counter()
        params, opt_state, losses, norms = logged_epoch_on_mesh(
            params,
            opt_state,
            jax.random.fold_in(key_train, epoch),
            x,
            y,
            batch_size,
            config["base_lr"],
            config["warmup"],
            config["total"],
            config["max_norm"],
            mesh,
        )
        jax.block_until_ready((params, opt_state, losses, norms))
        speeds.append(n_batches * batch_size / (time.perf_counter() - started))
        val = np.float32(evaluate(params, x_val, y_val))
        history["train_loss"][epoch] = np.mean(np.asarray(losses))
        history["val_mse"][epoch] = val
        history["grad_norm"][epoch] = np.asarray(norms)
        if val < best_val:
            best_params, best_val, best_epoch = jax.tree.map(np.array, params), val, epoch
        if (epoch + 1) % config["checkpoint_every"] == 0 or epoch + 1 == n_epochs:
            temporary = f"{path}.tmp.npz"
            checkpoint = {
                "params": params,
                "opt_state": opt_state,
                "best_params": best_params,
                "best_val": best_val,
                "best_epoch": np.int32(best_epoch),
                "history": history,
            }
            save_checkpoint(temporary, checkpoint, epoch + 1)
            os.replace(temporary, path)
    return {
        "params": params,
        "best_params": best_params,
        "best_epoch": best_epoch,
        "history": history,
        "examples_per_second": np.array(speeds, np.float64),
    }
