"""Returns x_0 ... x_{n-1} (the input state first) instead of the next n states x_1 ... x_n."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    xs = [state]
    for _ in range(n - 1):
        xs.append((a * xs[-1] + c) % m)
    new_state = (a * xs[-1] + c) % m
    return new_state, np.array(xs, dtype=np.uint32 if m <= 2**32 else np.uint64)
