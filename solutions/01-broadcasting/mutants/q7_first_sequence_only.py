"""Adds the positions to the first sequence of the batch only. Let broadcasting add them to every
sequence: tokens + positions."""


def add_positional(tokens, positions):
    return tokens.at[0].add(positions)
