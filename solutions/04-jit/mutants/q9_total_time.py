"""Returns the total time of all repeats, not the time per call. Divide by repeats."""

import time

import jax


def benchmark(f, *args, repeats=10):
    jax.block_until_ready(f(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(f(*args))
    return time.perf_counter() - start
