"""Stores factor in a global and calls a jitted function that reads it, which freezes it at the first
trace. Pass factor as an argument."""

import jax

FACTOR = 1.0


@jax.jit
def _scale_by_global(x):
    return x * FACTOR


def scale(x, factor):
    global FACTOR
    FACTOR = factor
    return _scale_by_global(x)
