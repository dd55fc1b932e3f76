"""Warms up but reads the clock without waiting, so it times the asynchronous dispatch, not the work.
Block on the results before reading the clock."""

import time

import jax


def benchmark(f, *args, repeats=10):
    jax.block_until_ready(f(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        f(*args)
    return (time.perf_counter() - start) / repeats
