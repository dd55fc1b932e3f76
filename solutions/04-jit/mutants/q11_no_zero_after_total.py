"""Forgets the last phase: past `total` the cosine climbs back up instead of staying at 0."""

import jax.numpy as jnp


def lr_schedule(step, base_lr, warmup, total):
    warm = base_lr * (step + 1) / warmup
    cosine = base_lr * 0.5 * (1 + jnp.cos(jnp.pi * (step - warmup) / (total - warmup)))
    return jnp.where(step < warmup, warm, cosine).astype(jnp.float32)
