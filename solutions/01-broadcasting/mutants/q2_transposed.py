"""Puts the new axes the wrong way round: an (m, n) grid of y[i] * x[j] instead of (n, m). The new axis
of x goes last and that of y first."""


def outer(x, y):
    return x[None, :] * y[:, None]
