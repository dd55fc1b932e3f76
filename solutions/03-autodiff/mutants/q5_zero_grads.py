"""Runs jax.value_and_grad(loss_fn, has_aux=True) once, then hands back zeros shaped like the gradient
(a placeholder left in). Return the gradient it computed."""

import jax
import jax.numpy as jnp


def value_grad_aux(loss_fn, params, batch):
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
    return loss, aux, jax.tree.map(jnp.zeros_like, grads)
