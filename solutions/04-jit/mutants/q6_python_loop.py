"""Loops in Python: unrolled while tracing, and range() of a traced iters fails."""


def newton_sqrt(a, iters):
    x = a
    for _ in range(iters):
        x = (x + a / x) / 2
    return x
