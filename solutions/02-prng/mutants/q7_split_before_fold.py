"""Splits the base key first out of habit, then folds the step into the split-off key. Fold the step
into the base key itself."""

import jax


def step_key(key, step):
    _, subkey = jax.random.split(key)
    return jax.random.fold_in(subkey, step)
