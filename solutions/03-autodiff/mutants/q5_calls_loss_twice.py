"""Calls loss_fn once for (loss, aux) and again inside jax.grad for the gradient."""

import jax


def value_grad_aux(loss_fn, params, batch):
    loss, aux = loss_fn(params, batch)
    grads = jax.grad(lambda p: loss_fn(p, batch)[0])(params)
    return loss, aux, grads
