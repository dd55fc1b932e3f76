"""Waits for the last result only after reading the clock, so the time misses work still running. Call
block_until_ready before reading the clock."""

import time

import jax


def benchmark(f, *args, repeats=10):
    jax.block_until_ready(f(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        out = f(*args)
    elapsed = time.perf_counter() - start
    jax.block_until_ready(out)
    return elapsed / repeats
