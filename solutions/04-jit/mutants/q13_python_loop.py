"""Loops in Python: with iters static it runs and grad works, but the loop is unrolled while tracing,
so the jaxpr grows with iters. Use lax.scan with length=iters."""


def sqrt_by_scan(a, iters):
    x = a
    for _ in range(iters):
        x = (x + a / x) / 2
    return x
