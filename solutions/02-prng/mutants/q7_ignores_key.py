"""Seeds a new key with the step number and ignores the base key."""

import jax


def step_key(key, step):
    return jax.random.key(step)
