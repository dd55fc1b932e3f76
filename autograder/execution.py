"""Executing notebook code cells in a namespace, as IPython would, without a kernel."""

from __future__ import annotations

import importlib.util
import linecache
import sys
import types
from pathlib import Path
from typing import Any

from .notebooks import executable_source
from .probing import ProbeSet


def fake_otter() -> types.ModuleType:
    """A stand-in for ``otter`` so that ``grader.check(...)`` costs nothing while grading."""
    mod = types.ModuleType("otter")

    class Notebook:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __getattr__(self, name: str) -> Any:
            return lambda *args, **kwargs: None

    mod.Notebook = Notebook  # type: ignore[attr-defined]
    return mod


def new_namespace() -> dict[str, Any]:
    return {"__name__": "__main__", "__builtins__": __builtins__}


def compile_cell(source: str, index: int) -> types.CodeType:
    """Compile a cell under the file name ``<cell-N>`` and register its lines, so that
    ``inspect.getsource`` and tracebacks can read them."""
    filename = f"<cell-{index}>"
    text = executable_source(source) + "\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    return compile(text, filename, "exec", dont_inherit=True)


def run_cells(cells: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Run ``cells`` in a fresh namespace in this process, as "Run all" would (``otter`` faked),
    going on after a cell that raises: ``(namespace, ["cell i: Error: message", ...])``. For
    instructor tools (selfcheck, the benchmark); student code runs in the sandbox only."""
    sys.modules["otter"] = fake_otter()
    env = new_namespace()
    errors = []
    for i, src in enumerate(cells):
        try:
            exec(compile_cell(src, i), env)  # noqa: S102 - the instructor's own notebooks
        except Exception as e:  # noqa: BLE001 - reported, and the next cell runs
            errors.append(f"cell {i}: {type(e).__name__}: {e}")
    return env, errors


def load_probes(path: Path) -> ProbeSet:
    """Import an assignment's ``probes.py`` (instructor code) and return its ``hidden`` ProbeSet."""
    name = f"_probes_{path.parent.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return _hidden(module, str(path))


def probes_from_source(source: str, assignment_id: str) -> ProbeSet:
    """:func:`load_probes` from the text of an assignment's ``probes.py``, as a grader that has
    no copy of the course (a Dask worker) receives it."""
    name = f"_probes_{assignment_id.replace('-', '_')}"
    module = types.ModuleType(name)
    module.__file__ = f"<probes of {assignment_id}>"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - instructor code
    return _hidden(module, module.__file__)


def _hidden(module: types.ModuleType, where: str) -> ProbeSet:
    hidden = getattr(module, "hidden", None)
    if not isinstance(hidden, ProbeSet):
        raise ImportError(f"{where} defines no `hidden = ProbeSet(...)`")
    return hidden
