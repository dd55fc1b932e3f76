"""Bugs that type-checking the package brought to light."""

from __future__ import annotations

from autograder.release.nbgrader import _meta


def test_a_graded_cell_without_points_is_worth_zero() -> None:
    """``_meta(..., grade=True)`` with ``points`` left at its default (``None``) called
    ``int(None)``: a TypeError instead of the 0 points that ``float(points or 0)`` meant."""
    assert _meta("q1_hidden", grade=True)["nbgrader"]["points"] == 0


def test_graded_points_keep_their_form() -> None:
    assert _meta("q1", grade=True, points=2.0)["nbgrader"]["points"] == 2
    assert isinstance(_meta("q1", grade=True, points=2.0)["nbgrader"]["points"], int)
    assert _meta("q1", grade=True, points=1.5)["nbgrader"]["points"] == 1.5
    assert "points" not in _meta("q1", points=3.0)["nbgrader"]
