"""Converts factor with float(), which needs its value: fails when factor is traced."""


def scale(x, factor):
    return x * float(factor)
