"""Source gates read the submitted cells in the grader, and fail closed on anything but a plain
`def` (autograder/sources.py)."""

from __future__ import annotations

import pytest

from autograder.probing import ProbeError, source_of
from autograder.sources import source_namespace

PLAIN = "import jax\nimport jax.numpy as jnp\n\ndef outer(x, y):\n    return helper(x)[:, None] * y\n"
HELPER = "def helper(x):\n    return jnp.outer(x, x)\n"


def test_a_plain_def_is_read_with_its_helpers() -> None:
    ns = source_namespace([PLAIN, HELPER], ["outer"])
    text = source_of(ns.outer)
    assert "def outer" in text and "jnp.outer(x, x)" in text


@pytest.mark.parametrize(
    "cell, why",
    [
        ("import functools\nouter = functools.partial(jnp.outer)", "Assign"),
        ("outer = lambda x, y: jnp.outer(x, y)", "Assign"),
        ("class O:\n    def __call__(self, x, y):\n        return x\nouter = O()", "Assign"),
        ("def deco(f):\n    return jnp.outer\n@deco\ndef outer(x, y):\n    return x", "decorator"),
        ("if True:\n    outer = jnp.outer", "If"),
        ("from jax.numpy import outer", "ImportFrom"),
        ("outer.__wrapped__ = print", "__wrapped__"),
        ("exec('outer = jnp.outer')", "exec"),
        ("def f():\n    global outer\n    outer = jnp.outer", "global"),
        ("for outer in [jnp.outer]:\n    pass", "For"),
    ],
)
def test_anything_but_a_plain_def_fails_closed(cell: str, why: str) -> None:
    ns = source_namespace([PLAIN, cell], ["outer"])
    with pytest.raises(ProbeError, match="plain `def`") as e:
        ns.outer  # noqa: B018
    assert why in str(e.value)


def test_jax_and_functools_decorators_are_allowed() -> None:
    cell = (
        "from functools import partial\n\n"
        "@partial(jax.jit, static_argnames='kind')\ndef outer(x, kind):\n    return x\n"
    )
    assert "def outer" in source_of(source_namespace([PLAIN, cell], ["outer"]).outer)


def test_a_decorator_named_like_jax_but_defined_in_the_notebook_is_not() -> None:
    cell = "def jit(f):\n    return jnp.outer\n\n@jit\ndef outer(x, y):\n    return x\n"
    with pytest.raises(ProbeError, match="decorator"):
        source_namespace([PLAIN, cell], ["outer"]).outer  # noqa: B018


def test_imports_resolve_to_the_real_objects_for_name_checks() -> None:
    import jax

    ns = source_namespace(["from jax import jacfwd\ndef outer(x, y):\n    return jacfwd(x)\n"], ["outer"])
    assert ns.outer.__globals__["jacfwd"] is jax.jacfwd


def test_a_cell_that_does_not_parse_binds_nothing() -> None:
    ns = source_namespace([PLAIN, "outer = (\n"], ["outer"])
    assert "def outer" in source_of(ns.outer)


def test_sources_are_read_safely_from_several_threads() -> None:
    """A grader with ``--jobs 2`` reads two submissions' sources at once. CPython 3.11's AST
    building keeps its depth in state the interpreter shares, so a thread switch inside one
    parse (a garbage collection can cause one) made another fail with SystemError, and a
    submission got an ``error`` row in a test run. Here every collection switches threads."""
    import gc
    import threading
    import time

    cells = [PLAIN, HELPER] + [
        f"def f{i}(x):\n    return [[(x + {i}) * (y - {i}) for y in range(3)] for _ in range(2)]"
        for i in range(300)
    ]
    failures: list[BaseException] = []

    def read() -> None:
        for _ in range(15):
            try:
                assert "jnp.outer(x, x)" in source_of(source_namespace(cells, ["outer"]).outer)
            except BaseException as e:  # noqa: BLE001 - collected for the assertion below
                failures.append(e)

    def switch(phase: str, info: dict) -> None:
        time.sleep(0)

    gc.callbacks.append(switch)
    try:
        threads = [threading.Thread(target=read) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.callbacks.remove(switch)
    assert not failures, failures[:2]
