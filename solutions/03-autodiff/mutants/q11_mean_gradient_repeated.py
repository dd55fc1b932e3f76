"""Takes the gradient of the batch's mean loss and repeats it once per example: the shapes are right,
but every row is the same averaged gradient, not that example's own. Vmap jax.grad(loss) over the
examples with in_axes=(None, 0, 0)."""

import jax
import jax.numpy as jnp


def per_example_grads(loss, params, xs, ys):
    def batch_loss(params):
        return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

    mean_grad = jax.grad(batch_loss)(params)
    return jax.tree.map(lambda g: jnp.broadcast_to(g, (xs.shape[0], *g.shape)), mean_grad)
