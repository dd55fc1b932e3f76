"""Forgets to advance the state: every sample is the input state (and so is new_state). Two
calls agree and the stream "continues", but the numbers are not the generator's."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    xs = [state % m] * n
    return xs[-1], np.array(xs, dtype=np.uint32 if m <= 2**32 else np.uint64)
