"""Takes one jax.grad per example in a Python loop, then stacks the rows: right numbers, but the traced
program holds one gradient per example and grows with the batch. Map jax.grad over the examples with
jax.vmap instead."""

import jax
import jax.numpy as jnp


def per_example_grads(loss, params, xs, ys):
    grads = [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]
    return jax.tree.map(lambda *rows: jnp.stack(rows), *grads)
