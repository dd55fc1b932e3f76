"""Adds delta to the uint8 image directly: a Python int is weakly typed, so the sum stays uint8
and wraps around (250 + 10 == 4)."""


def brighten(img, delta):
    return img + delta
