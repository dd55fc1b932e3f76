"""Adds delta to the uint8 image directly: a Python int is weakly typed, so the sum stays uint8 and
wraps around (250 + 10 == 4). Widen to a larger integer type, add, clip to [0, 255], convert back."""


def brighten(img, delta):
    return img + delta
