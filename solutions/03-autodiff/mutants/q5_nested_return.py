"""Returns value_and_grad's nested ((loss, aux), grads) instead of the flat (loss, aux, grads)."""

import jax


def value_grad_aux(loss_fn, params, batch):
    return jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
