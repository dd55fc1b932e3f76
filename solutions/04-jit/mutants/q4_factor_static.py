"""Makes factor static, so jax.jit(scale) then hands a tracer to a static argument. Pass factor as an
ordinary argument and multiply."""

import functools

import jax


@functools.partial(jax.jit, static_argnames="factor")
def scale(x, factor):
    return x * factor
