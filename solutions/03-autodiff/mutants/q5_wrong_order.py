"""Returns (loss, grads, aux): the right pieces in the wrong order. Return (loss, aux, grads)."""

import jax


def value_grad_aux(loss_fn, params, batch):
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
    return loss, grads, aux
