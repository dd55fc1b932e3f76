"""Loads the leaves in the sorted order of their names, and leaf_10 sorts before leaf_2, so a state of
more than ten leaves comes back scrambled. Load them by their index, in order."""

import jax
import numpy as np


def save_checkpoint(path, state, epoch):
    leaves_with_paths, _ = jax.tree_util.tree_flatten_with_path(state)
    paths = np.array([jax.tree_util.keystr(p) for p, _ in leaves_with_paths], dtype=str)
    leaves = {f"leaf_{i}": np.asarray(leaf) for i, (_, leaf) in enumerate(leaves_with_paths)}
    np.savez(path, paths=paths, epoch=np.asarray(epoch, np.int64), **leaves)


def load_checkpoint(path, like):
    like_with_paths, treedef = jax.tree_util.tree_flatten_with_path(like)
    like_paths = [jax.tree_util.keystr(p) for p, _ in like_with_paths]
    with np.load(path, allow_pickle=False) as saved:
        if like_paths != saved["paths"].tolist():
            raise ValueError("`like` does not match the checkpoint")
        leaves = [saved[name] for name in sorted(saved.files) if name.startswith("leaf_")]
        epoch = int(saved["epoch"])
    return jax.tree.unflatten(treedef, leaves), epoch
