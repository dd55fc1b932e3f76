"""Returns new_state as samples[-1], a NumPy uint32, so the next call's a * state wraps around. Return
the last state as a Python int."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    x = state
    xs = []
    for _ in range(n):
        x = (a * x + c) % m
        xs.append(int(x))
    samples = np.array(xs, dtype=np.uint32 if m <= 2**32 else np.uint64)
    return samples[-1], samples
