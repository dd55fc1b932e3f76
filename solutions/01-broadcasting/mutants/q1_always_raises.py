"""Raises ValueError on every input: right on every incompatible set of shapes, wrong on every other.
Raise only when two sizes on one axis differ and neither is 1."""


def broadcast_shape(*shapes):
    raise ValueError(f"shapes {shapes} do not broadcast")
