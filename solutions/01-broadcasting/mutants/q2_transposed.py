"""Puts the new axes the wrong way round: a (m, n) grid instead of (n, m)."""


def outer(x, y):
    return x[None, :] * y[:, None]
