"""Compares with one class at a time in a Python loop, which the question rules out. Compare
labels[..., None] with all the class numbers at once."""

import jax.numpy as jnp


def one_hot(labels, num_classes):
    return jnp.stack([labels == c for c in range(num_classes)], axis=-1).astype(jnp.float32)
