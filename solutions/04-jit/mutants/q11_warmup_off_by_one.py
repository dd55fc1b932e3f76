"""Warms up with step / warmup instead of (step + 1) / warmup: step 0 gets a rate of 0."""

import jax.numpy as jnp


def lr_schedule(step, base_lr, warmup, total):
    warm = base_lr * step / warmup
    cosine = base_lr * 0.5 * (1 + jnp.cos(jnp.pi * (step - warmup) / (total - warmup)))
    return jnp.where(step < warmup, warm, jnp.where(step < total, cosine, 0.0)).astype(jnp.float32)
