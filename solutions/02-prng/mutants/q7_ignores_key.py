"""Seeds a new key with the step number and ignores the base key. Fold the step into the key you are
given: jax.random.fold_in(key, step)."""

import jax


def step_key(key, step):
    return jax.random.key(step)
