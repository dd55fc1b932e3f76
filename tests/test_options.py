"""``grade``'s options (autograder/grading/options.py): one typed value, checked once, whose paths
are absolute wherever it was made and whose limit flags obey course.yml's rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.errors import UsageError
from autograder.grading.options import GradeOptions, shown
from autograder.sandbox.limits import MAX_SANDBOXES

BASE = {"cell_seconds": 60, "submission_seconds": 300, "memory_mb": 3072, "processes": 256, "output_mb": 2}


def test_relative_paths_are_resolved_where_the_options_are_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox changes its working folder: a relative `--out` must already name the folder
    it named where the command was typed (the README's `make demo` once broke on this)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    o = GradeOptions("01-broadcasting", Path("subs"), Path("out/demo"), roster=Path("~/roster.csv"))
    assert o.submissions == tmp_path / "subs" and o.out == tmp_path / "out" / "demo"
    assert o.roster == Path(os.path.expanduser("~")) / "roster.csv"
    # A link is kept as given, so that what it names is checked where it is read.
    assert GradeOptions("a", Path("link"), Path("o")).submissions == tmp_path / "link"
    assert shown(o.out) == os.path.join("out", "demo") and shown(Path("/elsewhere")) == "/elsewhere"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"jobs": 0}, "--jobs 0: must be at least 1"),
        ({"cpu_devices": -1}, "--cpu-devices -1: must be at least 1"),
        ({"jobs": MAX_SANDBOXES + 1}, f"--jobs {MAX_SANDBOXES + 1}: at most {MAX_SANDBOXES} sandboxes"),
    ],
)
def test_a_bad_flag_is_one_usage_line(tmp_path: Path, given: dict[str, int], message: str) -> None:
    with pytest.raises(UsageError, match="^" + message.replace("(", r"\(")):
        GradeOptions("a", tmp_path, tmp_path / "out", **given).check()  # type: ignore[arg-type]
    GradeOptions("a", tmp_path, tmp_path / "out", jobs=MAX_SANDBOXES).check()


def test_an_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("")
    with pytest.raises(UsageError, match=r"--out .*out: not a folder \(a file has that name\)"):
        GradeOptions("a", tmp_path, tmp_path / "out").check()


def test_limit_flags_override_course_yml_and_obey_its_rules(tmp_path: Path) -> None:
    o = GradeOptions("a", tmp_path, tmp_path / "out", cell_seconds=5, memory_mb=512)
    limits = o.limits(BASE)
    assert (limits.cell_seconds, limits.memory_mb, limits.submission_seconds) == (5, 512, 300)
    assert GradeOptions("a", tmp_path, tmp_path / "out").limits(BASE).memory_mb == 3072
    with pytest.raises(UsageError, match=r"^--cell-seconds 0: "):
        GradeOptions("a", tmp_path, tmp_path / "out", cell_seconds=0).limits(BASE)


def test_only_a_cluster_flag_grades_on_dask(tmp_path: Path) -> None:
    assert not GradeOptions("a", tmp_path, tmp_path).on_cluster
    assert GradeOptions("a", tmp_path, tmp_path, cluster="local:2").on_cluster
    assert GradeOptions("a", tmp_path, tmp_path, scheduler="tcp://h:8786").on_cluster
