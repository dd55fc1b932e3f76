"""Spreads the cosine over `total` steps instead of `total - warmup`: it never reaches 0."""

import jax.numpy as jnp


def lr_schedule(step, base_lr, warmup, total):
    warm = base_lr * (step + 1) / warmup
    cosine = base_lr * 0.5 * (1 + jnp.cos(jnp.pi * (step - warmup) / total))
    return jnp.where(step < warmup, warm, jnp.where(step < total, cosine, 0.0)).astype(jnp.float32)
