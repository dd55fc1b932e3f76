"""Returns (db, dw): the bias first. Return (dw, db) in argnums' order."""

import jax


def grad_wrt_w_and_b(loss, w, b, x, y):
    dw, db = jax.grad(loss, argnums=(0, 1))(w, b, x, y)
    return db, dw
