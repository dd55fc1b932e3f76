"""Converts factor with float(), which needs its value, so it fails when factor is traced. Multiply by
factor as it is."""


def scale(x, factor):
    return x * float(factor)
