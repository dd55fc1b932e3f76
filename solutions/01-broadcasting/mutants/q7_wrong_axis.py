"""Inserts the new axis in the middle: (time, 1, dim) broadcasts over time, not batch."""


def add_positional(tokens, positions):
    return tokens + positions[:, None, :]
