"""Flattens the gradient into one vector with ravel_pytree instead of keeping params' shape."""

import jax
from jax.flatten_util import ravel_pytree


def value_grad_aux(loss_fn, params, batch):
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
    return loss, aux, ravel_pytree(grads)[0]
