"""Asks NumPy for the answer (np.broadcast_shapes) instead of writing the rule. Compare the sizes axis
by axis from the right in plain Python."""

import numpy as np


def broadcast_shape(*shapes):
    return tuple(np.broadcast_shapes(*shapes))
