"""Trims the positions to fit the tokens instead of raising on a mismatch."""


def add_positional(tokens, positions):
    return tokens + positions[None, : tokens.shape[1], :]
