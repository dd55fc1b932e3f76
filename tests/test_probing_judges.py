"""The judges several assignments share (``autograder/probing/judges.py``), each with its
probe-body helper: a right answer passes, a wrong one fails with the question's words."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.config import ROOT
from autograder.probing import (
    RETURNED_NONE,
    devices_of,
    fixed_size_program,
    not_a_figure,
    on_every_device,
    primitives,
    traced_counts,
)

SIZES = (2, 5)

#: A judge worded as one question's probes word it.
judge = fixed_size_program(
    "ops",
    len(SIZES),
    untraced="cannot trace it ({error}) and it uses {loop}; use jax.vmap",
    unreadable="could not count",
    empty="is empty",
    grows=lambda ops: f"grows: {ops[0]} then {ops[1]}; use jax.vmap",
)


def _counts(fn: Callable[[jax.Array], jax.Array]) -> dict[str, Any]:
    """What a probe body returns for ``fn``, a function of one batch ``(B, 3)``."""
    return traced_counts("ops", lambda: [len(primitives(fn, jnp.ones((B, 3)))) for B in SIZES], fn)


def row_norms(x: jax.Array) -> jax.Array:
    norms: jax.Array = jax.vmap(jnp.linalg.norm)(x)
    return norms


def row_norms_looped(x: jax.Array) -> jax.Array:
    return jnp.stack([jnp.linalg.norm(row) for row in x])


def row_norms_in_numpy(x: jax.Array) -> jax.Array:
    return jnp.asarray(np.linalg.norm(np.asarray(x), axis=1))


def row_norms_in_numpy_looped(x: jax.Array) -> jax.Array:
    return jnp.asarray([np.linalg.norm(row) for row in np.asarray(x)])


def test_a_vmapped_program_keeps_its_size_and_passes() -> None:
    out = _counts(row_norms)
    assert out["ops"][0] == out["ops"][1] > 0
    assert judge(out, out) is None


def test_a_python_loop_grows_the_program_and_fails_with_the_counts() -> None:
    out = _counts(row_norms_looped)
    small, large = out["ops"]
    assert large > small
    assert judge(out, _counts(row_norms)) == f"grows: {small} then {large}; use jax.vmap"


def test_an_untraceable_function_is_judged_on_its_source() -> None:
    plain = _counts(row_norms_in_numpy)
    assert plain == {"untraced": "TracerArrayConversionError", "loops": []}
    assert judge(plain, _counts(row_norms)) is None
    looped = _counts(row_norms_in_numpy_looped)
    assert looped["loops"] == ["a list comprehension"]
    assert judge(looped, _counts(row_norms)) == (
        "cannot trace it (TracerArrayConversionError) and it uses a list comprehension; use jax.vmap"
    )


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        ([0, 0], "is empty"),  # the stub: nothing traced
        ([4, 0], "is empty"),
        ([3], "could not count"),
        ([3, "5"], "could not count"),
        ("3, 5", "could not count"),
        ([5, 3], None),  # smaller at the larger size: no loop repeats a body
        ([3, 3], None),
    ],
)
def test_counts_that_cannot_be_read_or_count_nothing_fail(counts: object, verdict: str | None) -> None:
    assert judge({"ops": counts}, {"ops": [3, 3]}) == verdict


def test_three_sizes_fail_only_when_the_program_grows_at_every_one() -> None:
    three = fixed_size_program(
        "draws", 3, untraced="", unreadable="?", empty="0", grows=lambda n: f"grows {n}"
    )
    assert three({"draws": [2, 3, 4]}, {}) == "grows [2, 3, 4]"
    assert three({"draws": [2, 3, 3]}, {}) is None  # a last, shorter chunk (lax.map's batch_size)
    assert three({"draws": [2, 3]}, {}) == "?"


on_all = on_every_device("shard it")


def test_results_on_every_device_pass_and_fewer_fail_with_the_hint() -> None:
    assert on_all({"devices": [8, 8, 8], "n": 8}, {"devices": [8, 8, 8], "n": 8}) is None
    # The count is the reference's: a result claiming fewer devices cannot lower the bar.
    assert (
        on_all({"devices": [8, 1], "n": 1}, {"n": 8})
        == "the results live on 1 device(s), not on all 8: shard it"
    )
    assert on_all({"devices": [], "n": 8}, {"n": 8}) == "returned no arrays"
    assert on_all({"devices": "8", "n": 8}, {"n": 8}) == "returned no arrays"


def test_devices_of_counts_one_for_anything_that_is_not_a_jax_array() -> None:
    assert devices_of((jnp.ones(3), {"w": np.ones(2), "b": 2.0})) == [1, 1, 1]
    assert devices_of(None) == []


def test_devices_of_sees_a_pmap_spread_over_two_devices_and_a_jit_on_one() -> None:
    """On 2 virtual CPU devices (a process of its own: the count is fixed when JAX starts)."""
    code = textwrap.dedent(
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
        import jax, jax.numpy as jnp
        from autograder.probing import devices_of
        x = jnp.ones((2, 3))
        step = lambda r: (r * 2, r.sum())
        print(devices_of(jax.pmap(step)(x)), devices_of(jax.jit(step)(x)))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[2, 2] [1, 1]"


def test_a_figure_passes_and_anything_else_is_named() -> None:
    assert not_a_figure({"type": "Figure", "figure": True}) is None
    assert (
        not_a_figure({"type": "NoneType", "figure": False})
        == f"{RETURNED_NONE}; it should return a matplotlib Figure"
    )
    assert (
        not_a_figure({"type": "Axes", "figure": False})
        == "returned an object of type Axes, not a matplotlib Figure"
    )
    # Only the body's own True counts: a forged truthy value is not a figure.
    assert (
        not_a_figure({"type": "Figure", "figure": 1})
        == "returned an object of type Figure, not a matplotlib Figure"
    )
