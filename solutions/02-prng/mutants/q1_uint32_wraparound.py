"""Does the arithmetic in NumPy uint32, which wraps mod 2**32 before the % m (wrong unless m = 2**32).
Compute each step with Python ints."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    xs = np.zeros(n, dtype=np.uint32)
    x = np.uint32(state)
    with np.errstate(over="ignore"):
        for i in range(n):
            x = np.uint32(np.uint32(a) * x + np.uint32(c))
            x = np.uint32(int(x) % m)
            xs[i] = x
    return int(x), xs
