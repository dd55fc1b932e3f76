"""Approximates J(x) @ v with a forward finite difference instead of autodiff."""


def directional_derivative(f, x, v):
    eps = 1e-3
    return (f(x + eps * v) - f(x)) / eps
