"""Vmaps with the default in_axes=0, which maps params too, as if each example had its own parameters:
vmap raises on params whose leading axis is not the batch (or on a scalar leaf). Pass in_axes=(None,
0, 0) so that every example shares the parameters."""

import jax


def per_example_grads(loss, params, xs, ys):
    return jax.vmap(jax.grad(loss))(params, xs, ys)
