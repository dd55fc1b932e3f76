"""Calls loss_fn once for (loss, aux) and again inside jax.grad for the gradient. One
jax.value_and_grad(loss_fn, has_aux=True) gives all three."""

import jax


def value_grad_aux(loss_fn, params, batch):
    loss, aux = loss_fn(params, batch)
    grads = jax.grad(lambda p: loss_fn(p, batch)[0])(params)
    return loss, aux, grads
