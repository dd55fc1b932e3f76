"""Differentiates with respect to params and batch (argnums=(0, 1)), so grads is a pair. Keep the
default argnums=0."""

import jax


def value_grad_aux(loss_fn, params, batch):
    (loss, aux), grads = jax.value_and_grad(loss_fn, argnums=(0, 1), has_aux=True)(params, batch)
    return loss, aux, grads
