"""Averages the copies in unreplicate (leaf.mean(axis=0)) instead of taking copy 0: copies that differ
get mixed, and integer leaves turn float. Take leaf[0]."""

import jax


def unreplicate(tree):
    return jax.tree.map(lambda leaf: leaf.mean(axis=0), tree)
