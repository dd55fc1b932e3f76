"""Saves every leaf as float32 (everything is float32), so Adam's int32 step count t comes back as a
float, and integer or boolean leaves change dtype. Save each leaf with its own dtype."""

import jax
import numpy as np


def save_checkpoint(path, state, epoch):
    leaves_with_paths, _ = jax.tree_util.tree_flatten_with_path(state)
    paths = np.array([jax.tree_util.keystr(p) for p, _ in leaves_with_paths], dtype=str)
    leaves = {f"leaf_{i}": np.asarray(leaf, np.float32) for i, (_, leaf) in enumerate(leaves_with_paths)}
    np.savez(path, paths=paths, epoch=np.asarray(epoch, np.int64), **leaves)


def load_checkpoint(path, like):
    like_with_paths, treedef = jax.tree_util.tree_flatten_with_path(like)
    like_paths = [jax.tree_util.keystr(p) for p, _ in like_with_paths]
    with np.load(path, allow_pickle=False) as saved:
        if like_paths != saved["paths"].tolist():
            raise ValueError("`like` does not match the checkpoint")
        leaves = [saved[f"leaf_{i}"] for i in range(len(like_paths))]
        epoch = int(saved["epoch"])
    return jax.tree.unflatten(treedef, leaves), epoch
