"""Numbers the classes from 1 (compares with arange(1, num_classes + 1)): float32 and one-hot
shaped, but every label lands in the wrong column."""

import jax.numpy as jnp


def one_hot(labels, num_classes):
    return (labels[..., None] == jnp.arange(1, num_classes + 1)).astype(jnp.float32)
