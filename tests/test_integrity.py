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


def test_every_reader_of_the_checks_tools_unpacks_them_by_their_names() -> None:
    """The integrity check's tools travel as a plain tuple read by position (a named tuple's
    fields could be replaced on its class). Every unpacking of it in integrity.py must give each
    position the name TOOL_NAMES gives it: an entry inserted in the tuple fails here, not
    silently in the sandbox."""
    import ast
    import inspect

    from autograder.sandbox import integrity

    assert len(integrity._TOOLS) == len(integrity.TOOL_NAMES)
    tree = ast.parse(inspect.getsource(integrity))
    checked = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        names = [e.id for e in target.elts] if isinstance(target, ast.Tuple) else [getattr(target, "id", "")]
        indices: list[int] = []
        if isinstance(value, ast.Subscript) and getattr(value.value, "id", "") == "tools":
            s = value.slice
            if isinstance(s, ast.Slice):
                lo = s.lower.value if isinstance(s.lower, ast.Constant) else 0
                indices = list(range(lo, s.upper.value))  # type: ignore[union-attr]
            elif isinstance(s, ast.Constant):
                indices = [s.value]
        elif isinstance(value, ast.Tuple) and all(
            isinstance(e, ast.Subscript) and getattr(e.value, "id", "") == "tools" for e in value.elts
        ):
            indices = [e.slice.value for e in value.elts]  # type: ignore[attr-defined]
        elif isinstance(value, ast.GeneratorExp) and "tools[" in ast.unparse(value):
            indices = [c.value for c in value.generators[0].iter.elts]  # type: ignore[attr-defined]
        else:
            continue
        assert len(indices) == len(names), ast.unparse(node)
        for i, name in zip(indices, names, strict=True):
            assert name == "_" or name == integrity.TOOL_NAMES[i], (ast.unparse(node), i, name)
        checked += 1
    assert checked >= 5


def test_every_module_of_the_probe_package_is_protected_with_its_data() -> None:
    """The probe runner and the hidden tests read names from every probing module at call time
    (a judge's constants included): a module added to the package is protected with all its names,
    not only its functions, or a cell could replace what a judge compares with."""
    from autograder.config import ROOT
    from autograder.sandbox.integrity import PROTECTED_MODULES

    package = ROOT / "autograder" / "probing"
    modules = {f"autograder.probing.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    assert modules - set(PROTECTED_MODULES) == set()
