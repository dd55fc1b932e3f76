"""Computes the size with jnp.prod, which is a tracer under jit, where shapes must be concrete. Use
x.size or math.prod(x.shape), plain Python ints."""

import jax.numpy as jnp


def flatten(x):
    return jnp.reshape(x, (jnp.prod(jnp.array(x.shape)),))
