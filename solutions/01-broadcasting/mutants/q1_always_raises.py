"""Raises ValueError on every input: right on every incompatible set, wrong on every other."""


def broadcast_shape(*shapes):
    raise ValueError(f"shapes {shapes} do not broadcast")
