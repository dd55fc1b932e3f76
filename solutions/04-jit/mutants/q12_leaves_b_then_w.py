"""Registers the fields in the wrong order, so jax.tree.leaves(p) is [p.b, p.w]. Register w first, then
b."""

import dataclasses
import functools

import jax


@functools.partial(jax.tree_util.register_dataclass, data_fields=["b", "w"], meta_fields=[])
@dataclasses.dataclass
class Affine:
    w: jax.Array
    b: jax.Array


def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
