"""Keeps the generator's state in a global seeded on the first call, like np.random.seed, so the same
state in no longer gives the same numbers out. Take the state as an argument and return the new one."""

import numpy as np

_lcg_state = None


def lcg(state, n, a=1664525, c=1013904223, m=2**32):
    global _lcg_state
    if _lcg_state is None:
        _lcg_state = state
    xs = []
    for _ in range(n):
        _lcg_state = (a * _lcg_state + c) % m
        xs.append(_lcg_state)
    return _lcg_state, np.array(xs, dtype=np.uint32 if m <= 2**32 else np.uint64)
