"""Inserts the new axis in the middle: (time, 1, dim) broadcasts over time, not over the batch. Add the
positions as they are (or as positions[None])."""


def add_positional(tokens, positions):
    return tokens + positions[:, None, :]
