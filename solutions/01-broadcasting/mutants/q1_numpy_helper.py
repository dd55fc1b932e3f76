"""Asks NumPy for the answer instead of writing the rule."""

import numpy as np


def broadcast_shape(*shapes):
    return tuple(np.broadcast_shapes(*shapes))
