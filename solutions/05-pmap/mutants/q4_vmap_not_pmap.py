"""Uses jax.vmap with axis_name="batch" instead of jax.pmap: lax.pmean works under vmap too, so the
numbers are right, but everything runs on one device. Use jax.pmap to run on every device."""

# ruff: noqa: F821 - mse_loss: the notebook's own
import jax
from jax import lax


def _step(params, x, y, lr):
    loss, grads = lax.pmean(jax.value_and_grad(mse_loss)(params, x, y), axis_name="batch")
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


train_step = jax.vmap(_step, axis_name="batch", in_axes=(0, 0, 0, None))
