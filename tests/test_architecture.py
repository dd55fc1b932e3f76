"""The grader package's shape: imports flow one way (no circle, lazy imports included), and
release stands on grading, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autograder"


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str], root: Path = PACKAGE) -> set[str]:
    """The package's modules that ``path`` imports anywhere in its body (a function's lazy
    import counts: it hides a circle, it does not remove it)."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            # `from .pkg import name` imports pkg.name where that is a module, else pkg.
            names = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin for a in node.names]
        else:
            continue
        found.update(n for n in names if n in modules and n != me)
    return found


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(f) for f in files}
    return {module_name(f): imports(f, modules) for f in files}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """A package whose only edges are a lazy import inside a function and a relative one: both
    are arrows (a graph of top-level imports alone would find neither)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from . import b\n    return b\n")
    (tmp_path / "pkg" / "b.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "c.py").write_text("from .a import f\n")
    modules = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    root = tmp_path / "pkg"
    assert imports(root / "a.py", modules, root) == {"pkg.b"}
    assert imports(root / "c.py", modules, root) == {"pkg.a"}


def test_the_command_line_reaches_grading_only_lazily() -> None:
    """``cli`` imports the grade command inside ``main`` (so ``--help`` stays fast): the graph
    still has that arrow, and it is not a top-level import."""
    graph = import_graph()
    assert "autograder.grading.batch" in graph["autograder.cli"]
    top = ast.parse((PACKAGE / "cli.py").read_text(encoding="utf-8")).body
    top_level = {n.module for n in top if isinstance(n, ast.ImportFrom)}
    assert not any(m and "grading" in m for m in top_level)


def test_release_may_import_grading_and_nothing_else_imports_release() -> None:
    """The pipeline points one way: ``release`` (build, Gradescope, nbgrader, validate) stands on
    ``grading``; grading, the sandbox and the shared readers never import release, and the
    sandbox never imports grading."""
    graph = import_graph()
    for module, deps in graph.items():
        if module.startswith("autograder.release") or module in {"autograder.cli", "autograder.__main__"}:
            continue
        assert not [d for d in deps if d.startswith("autograder.release")], module
        if module.startswith(("autograder.sandbox", "autograder.probing")):
            assert not [d for d in deps if d.startswith("autograder.grading")], module
    assert any(d.startswith("autograder.grading") for d in graph["autograder.release.gradescope"])


def test_no_import_circle_in_the_grader_package() -> None:
    found = cycles(import_graph())
    assert not found, "import circles (a lazy import counts): " + "; ".join(" <-> ".join(c) for c in found)


#: Pipeline modules tested under another name: the command a user runs (batch: `grade`), a child
#: process tested through its client (the reader), a helper of one stage tested with it (the
#: download layouts with the LMS round trip).
TESTED_AS = {
    "batch": "test_grade_cli.py",
    "backends.dask_cluster": "test_dask_cluster.py",
    "reader_process": "test_reading.py",
    "cache_folder": "test_reference.py",
    "downloads": "test_lms.py",
}


def test_every_stage_of_the_pipeline_has_a_test_module_named_for_it() -> None:
    """Tests mirror the package: changing ``grading/gates.py`` means running ``tests/test_gates.py``
    (a package, ``lms/`` or ``report/``, has one test module for all of it)."""
    grading = PACKAGE / "grading"
    tests = {p.name for p in (PACKAGE.parent / "tests").glob("test_*.py")}
    wanted = {}
    for path in grading.rglob("*.py"):
        parts = path.relative_to(grading).with_suffix("").parts
        if parts == ("__init__",) or parts == ("backends", "__init__"):
            continue  # the package's docstrings
        name = ".".join(p for p in parts if p != "__init__")
        top = parts[0] if len(parts) > 1 and parts[0] != "backends" else name
        wanted[name] = TESTED_AS.get(name, f"test_{top}.py")
    missing = {module: test for module, test in wanted.items() if test not in tests}
    assert not missing, f"grading modules without their test module: {missing}"
