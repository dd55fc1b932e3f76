"""Loops in Python: unrolled while tracing, and range() of a traced iters fails. Use lax.fori_loop(0,
iters, step, x0)."""


def newton_sqrt(a, iters):
    x = a
    for _ in range(iters):
        x = (x + a / x) / 2
    return x
