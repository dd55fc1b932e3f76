"""Indexes with a boolean mask, whose result shape depends on the values: fails under jit."""


def sum_negatives(x):
    return x[x < 0].sum()
