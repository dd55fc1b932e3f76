"""Maps over the keys but draws every row from keys[0], so all the copies are identical. Draw each row
from its own key."""

import jax


def noisy_copies(keys, x, sigma):
    return jax.vmap(lambda k: x + sigma * jax.random.normal(keys[0], x.shape))(keys)
