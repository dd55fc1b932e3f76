"""Pickles the whole state with the pickle module: it round-trips, but loading a pickle runs whatever
code the file holds, and np.load(path, allow_pickle=False) refuses the file. Save the leaves as
arrays with np.savez."""

import pickle

import jax


def save_checkpoint(path, state, epoch):
    with open(path, "wb") as f:
        pickle.dump({"state": jax.device_get(state), "epoch": epoch}, f)


def load_checkpoint(path, like):
    with open(path, "rb") as f:
        saved = pickle.load(f)  # noqa: S301 - the mistake this file shows
    leaves, treedef = jax.tree.flatten(like)
    if len(jax.tree.leaves(saved["state"])) != len(leaves):
        raise ValueError("`like` does not match the checkpoint")
    return jax.tree.unflatten(treedef, jax.tree.leaves(saved["state"])), saved["epoch"]
