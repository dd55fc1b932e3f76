"""Executing notebook code cells in a namespace, as IPython would, without a kernel."""

from __future__ import annotations

import importlib.util
import linecache
import sys
import types
from pathlib import Path
from typing import Any

from ..notebooks import executable_source
from ..probing import ProbeSet


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


class TimeitResult:
    """What ``x = %timeit -o ...`` gives: the one run the grader makes of the statement (it
    times nothing for points, and a thousand runs would cost the grading time)."""

    def __init__(self, seconds: float):
        self.loops, self.repeat = 1, 1
        self.best = self.worst = self.average = seconds
        self.stdev = 0.0
        self.all_runs = self.timings = [seconds]
        self.compile_time = 0.0

    def __repr__(self) -> str:
        return f"{self.average * 1e6:.1f} us (1 run, 1 loop: the grader runs a timed statement once)"


class Shell:
    """``get_ipython()`` for a notebook run without a kernel, as the IPython input transformer
    calls it (see :func:`autograder.notebooks.executable_source`): ``%timeit`` runs its statement
    once, ``%%writefile`` writes its file; shell commands, help (``obj?``) and display-only
    magics do nothing. ``%time`` and ``%%time`` never reach here: they are read as their code."""

    def __init__(self, env: dict[str, Any]):
        self._env = env
        self._runs = 0

    def __repr__(self) -> str:
        return "<the grader's notebook shell>"

    def _exec(self, code: str, local: dict[str, Any] | None = None) -> Any:
        import time

        self._runs += 1
        text = executable_source(code)
        filename = f"<magic-{self._runs}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        start = time.perf_counter()
        try:
            value = eval(compile(text, filename, "eval", dont_inherit=True), self._env, local)  # noqa: S307
        except SyntaxError:
            exec(compile(text + "\n", filename, "exec", dont_inherit=True), self._env, local)  # noqa: S102
            value = None
        return value, time.perf_counter() - start

    @staticmethod
    def _timeit_statement(line: str) -> tuple[str, bool]:
        """The statement of a ``%timeit`` line and whether ``-o`` asked for the result."""
        words, wants, i = line.split(" "), False, 0
        while i < len(words) and (words[i].startswith("-") or not words[i]):
            flag = words[i]
            wants |= flag == "-o"
            i += 2 if flag in ("-n", "-r", "-p") else 1
        return " ".join(words[i:]), wants

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1) -> Any:
        if name == "timeit":
            statement, wants = self._timeit_statement(line)
            _, seconds = self._exec(statement, {})
            return TimeitResult(seconds) if wants else None
        if name == "time":
            return self._exec(line)[0]
        return None

    def run_cell_magic(self, name: str, line: str, cell: str) -> Any:
        if name == "timeit":
            setup, wants = self._timeit_statement(line)
            local: dict[str, Any] = {}
            if setup.strip():
                self._exec(setup, local)
            _, seconds = self._exec(cell, local)
            return TimeitResult(seconds) if wants else None
        if name in ("time", "capture", "prun"):
            self._exec(cell)
        elif name == "writefile" and line.split():
            from pathlib import Path

            Path(line.split()[-1]).write_text(cell, encoding="utf-8")
        return None

    def system(self, cmd: str) -> None:
        return None

    def getoutput(self, cmd: str, split: bool = True) -> list[str]:
        return []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def _display(*objs: Any, **kwargs: Any) -> None:
    """``display`` as a notebook has it: the grader shows nothing."""
    return None


def new_namespace() -> dict[str, Any]:
    """A notebook's globals: ``get_ipython()`` and ``display()`` there as in Jupyter."""
    env: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    shell = Shell(env)
    env["get_ipython"] = lambda: shell
    env["display"] = _display
    return env


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
