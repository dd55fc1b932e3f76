"""The sandbox's count of library names (autograder/sandbox/integrity.py): what student code adds
to a library's module or class is reported, so that a source gate reading it fails closed."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest

from autograder.probing import plain
from autograder.sandbox import integrity


@pytest.fixture
def before() -> Iterator[integrity.Names]:
    yield integrity.names()
    for target, name in (
        (plain.ProbeError, "times"),
        (plain, "times"),
        (plain, "helpers_again"),
        (plain._plain_array, "times"),
    ):
        if name in vars(target):
            delattr(target, name)


def test_a_method_added_to_a_library_class_is_reported(before: integrity.Names) -> None:
    _, counts = integrity.added(before, ())
    plain.ProbeError.times = lambda self, other: other  # type: ignore[attr-defined]
    found, _ = integrity.added(before, counts)
    assert found == ["autograder.probing.plain.ProbeError.times"]


def test_a_function_added_to_a_library_module_is_reported(before: integrity.Names) -> None:
    plain.times = print  # type: ignore[attr-defined]
    found, _ = integrity.added(before, ())
    assert found == ["autograder.probing.plain.times"]


def test_an_attribute_added_to_a_library_function_is_reported(before: integrity.Names) -> None:
    plain._plain_array.times = print  # type: ignore[attr-defined]
    found, _ = integrity.added(before, ())
    assert found == ["autograder.probing.plain._plain_array.times"]


def test_a_submodule_is_not_reported(before: integrity.Names) -> None:
    """An import adds its module to the package's namespace: ordinary use, not a planted name."""
    plain.helpers_again = types.ModuleType("helpers_again")  # type: ignore[attr-defined]
    assert integrity.added(before, ())[0] == []


def test_nothing_added_is_nothing_reported(before: integrity.Names) -> None:
    assert integrity.added(before, ())[0] == []


def test_a_name_swapped_for_another_is_found_by_the_full_look(before: integrity.Names) -> None:
    """Deleting one name and adding another keeps every count: the cheap look passes it, the
    full look (which the sandbox makes after the cells and after the last test) does not."""
    _, counts = integrity.added(before, ())
    doc = plain.__doc__
    del plain.__doc__
    try:
        plain.times = print  # type: ignore[attr-defined]
        assert integrity.added(before, counts)[0] == []
        assert integrity.added(before, ())[0] == ["autograder.probing.plain.times"]
    finally:
        plain.__doc__ = doc
