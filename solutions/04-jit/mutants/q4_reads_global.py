"""Multiplies by a global instead of the `factor` argument."""

FACTOR = 2.0


def scale(x, factor):
    return x * FACTOR
