"""Broadcasts empty NumPy arrays of the given shapes and reads the result's shape: NumPy does the work
the question asks you to write. Compare the sizes axis by axis from the right in plain Python."""

import numpy as np


def broadcast_shape(*shapes):
    result = np.empty(())
    for shape in shapes:
        result = result + np.empty(shape)
    return result.shape
