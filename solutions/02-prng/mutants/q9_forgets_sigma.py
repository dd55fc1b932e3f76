"""Adds unit-variance noise: it forgets to scale the normal draw by sigma. Add sigma * normal(key,
x.shape)."""

import jax


def noisy_copies(keys, x, sigma):
    return jax.vmap(lambda k: x + jax.random.normal(k, x.shape))(keys)
