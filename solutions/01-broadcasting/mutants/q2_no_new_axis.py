"""Multiplies the vectors without adding axes: elementwise, not outer."""


def outer(x, y):
    return x * y
