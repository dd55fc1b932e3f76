"""Adds the positions to the first sequence of the batch only."""


def add_positional(tokens, positions):
    return tokens.at[0].add(positions)
