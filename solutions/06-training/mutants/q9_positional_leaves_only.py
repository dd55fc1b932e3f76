"""Saves the leaves by position only and checks just their number, so a like with a renamed dict key
loads without an error, its arrays put back wherever the sorted keys fall. Save the tree's structure
too and compare it with like's."""

import jax
import numpy as np


def save_checkpoint(path, state, epoch):
    np.savez(path, *[np.asarray(leaf) for leaf in jax.tree.leaves(state)], epoch=np.asarray(epoch))


def load_checkpoint(path, like):
    leaves, treedef = jax.tree.flatten(like)
    with np.load(path, allow_pickle=False) as saved:
        n_saved = len(saved.files) - 1
        if n_saved != len(leaves):
            raise ValueError(f"the checkpoint holds {n_saved} leaves, `like` {len(leaves)}")
        arrays = [saved[f"arr_{i}"] for i in range(n_saved)]
        epoch = int(saved["epoch"])
    return jax.tree.unflatten(treedef, arrays), epoch
