"""Replays step + 1 sequential splits, so a step's key depends on the chain before it, and costs a
split per step. Use jax.random.fold_in(key, step)."""

import jax


def step_key(key, step):
    for _ in range(step + 1):
        key, subkey = jax.random.split(key)
    return subkey
