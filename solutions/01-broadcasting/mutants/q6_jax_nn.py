"""Calls jax.nn.one_hot, the library answer."""

import jax


def one_hot(labels, num_classes):
    return jax.nn.one_hot(labels, num_classes)
