"""Scans over jnp.arange(iters), whose length must be concrete, so it fails when iters is traced. Use
lax.fori_loop, which accepts a traced trip count."""

import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, iters):
    x, _ = lax.scan(lambda x, _: ((x + a / x) / 2, None), a, jnp.arange(iters))
    return x
