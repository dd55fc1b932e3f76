"""Builds the new Affine field by field: right for one Affine, fails on a list of layers."""


def sgd_update(params, grads, lr):
    return type(params)(w=params.w - lr * grads.w, b=params.b - lr * grads.b)
