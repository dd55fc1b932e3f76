"""The installed libraries' names (autograder/grading/library_names.py), listed in a clean process
and kept per library versions: what a gate checks an attribute read against."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from autograder.grading.library_names import names_file


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    cache = tmp_path_factory.mktemp("cache")
    path = names_file(cache)
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_the_list_holds_what_the_libraries_define_and_nothing_planted(
    listed: tuple[Path, dict[str, Any]],
) -> None:
    _, names = listed
    modules = names["modules"]
    assert isinstance(modules, dict)
    assert {"outer", "einsum", "asarray"} <= set(modules["jax.numpy"])
    assert {"vmap", "jit", "shard_map"} <= set(modules["jax"]) and "vectorize" in modules["numpy"]
    classes = set(names["classes"])
    assert {"at", "reshape", "sharding", "shape", "astype"} <= classes  # jax.Array's, tracers'
    assert "times" not in classes and "times" not in modules["jax.numpy"]


def test_it_is_listed_once_per_versions_and_never_from_the_working_folder(
    listed: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second call reads the file it made; the listing runs in the cache folder, so a module a
    notebook wrote where the grader was started (`jax.py`) cannot shadow a library."""
    path, _ = listed
    mtime = path.stat().st_mtime_ns
    assert names_file(path.parent) == path and path.stat().st_mtime_ns == mtime
    (tmp_path / "numpy.py").write_text("raise SystemExit('shadowed')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONSAFEPATH", "")  # as a shell with nothing set would run it
    fresh = names_file(tmp_path / "cache")
    assert fresh.name == path.name and "vectorize" in json.loads(fresh.read_text())["modules"]["numpy"]
    assert not [p for p in os.listdir(tmp_path / "cache") if p.endswith(".tmp")]
