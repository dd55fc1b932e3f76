"""Converts to int32 instead of float32. Convert the comparison with .astype(jnp.float32)."""

import jax.numpy as jnp


def one_hot(labels, num_classes):
    return (labels[..., None] == jnp.arange(num_classes)).astype(jnp.int32)
