"""Builds the new Affine field by field: right for one Affine, but it fails on a list of layers. Use
jax.tree.map over params and grads."""


def sgd_update(params, grads, lr):
    return type(params)(w=params.w - lr * grads.w, b=params.b - lr * grads.b)
