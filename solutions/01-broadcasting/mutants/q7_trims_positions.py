"""Trims the positions to fit the tokens instead of raising on a mismatch, which hides a bug in the
caller. Raise ValueError when positions.shape is not tokens.shape[1:]."""


def add_positional(tokens, positions):
    return tokens + positions[None, : tokens.shape[1], :]
