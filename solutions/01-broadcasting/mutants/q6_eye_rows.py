"""Picks rows of an identity matrix: an out-of-range label is clamped (or wraps) to a real class
instead of giving all zeros. Compare labels[..., None] with the class numbers instead."""

import jax.numpy as jnp


def one_hot(labels, num_classes):
    return jnp.eye(num_classes, dtype=jnp.float32)[labels]
