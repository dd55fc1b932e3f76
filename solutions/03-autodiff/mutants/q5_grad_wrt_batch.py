"""Differentiates with respect to the batch (argnums=1) instead of params."""

import jax


def value_grad_aux(loss_fn, params, batch):
    (loss, aux), grads = jax.value_and_grad(loss_fn, argnums=1, has_aux=True)(params, batch)
    return loss, aux, grads
