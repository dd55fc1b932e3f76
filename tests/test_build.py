"""build: the same sources give the same student files, student zips and Gradescope zips, byte
for byte, and assignments/ is fresh."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.release import build

COURSE = load_course()


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_building_twice_gives_identical_student_files(tmp_path: Path) -> None:
    for run in ("one", "two"):
        build.main(
            release_root=tmp_path / run / "release",
            build_root=tmp_path / run / "build",
            course=COURSE,
            quiet=True,
        )
    one, two = files(tmp_path / "one" / "release"), files(tmp_path / "two" / "release")
    assert one == two
    assert sorted({k.split("/")[0] for k in one}) == [a.id for a in COURSE.assignments]
    committed = Path(build.RELEASE_ROOT)
    stale = [k for k, v in one.items() if not (committed / k).is_file() or (committed / k).read_bytes() != v]
    assert not stale, f"assignments/ is not what build makes: {stale[:3]}; run `python -m autograder build`"
    for a in COURSE.assignments:
        zip_path = tmp_path / "one" / "build" / a.id / f"{a.id}-autograder.zip"
        assert zip_path.is_file() and zip_path.stat().st_size > 1000
        again = tmp_path / "two" / "build" / a.id / f"{a.id}-autograder.zip"
        assert zip_path.read_bytes() == again.read_bytes(), f"{a.id}: the zip differs between builds"
        handout = f"{a.id}/{a.id}-student.zip"
        assert (tmp_path / "one" / "build" / handout).read_bytes() == (
            tmp_path / "two" / "build" / handout
        ).read_bytes(), f"{a.id}: the student zip differs between builds"
        assert filecmp.cmp(
            tmp_path / "one" / "build" / a.id / "reference.ipynb",
            tmp_path / "two" / "build" / a.id / "reference.ipynb",
            shallow=False,
        )


def test_student_notebooks_have_no_outputs_and_every_stub(tmp_path: Path) -> None:
    import nbformat

    from autograder.notebooks import defined_names

    for a in COURSE.assignments:
        nb = nbformat.read(a.release_dir / a.notebook, as_version=4)
        assert all(
            not c.get("outputs") and c.get("execution_count") is None
            for c in nb.cells
            if c.cell_type == "code"
        )
        defined = set().union(*(defined_names(c.source) for c in nb.cells if c.cell_type == "code"))
        assert set(a.function_question()) <= defined, a.id


def test_a_master_with_outputs_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat

    a = COURSE.assignment("01-broadcasting")
    nb = nbformat.read(a.master, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hi")]
    from autograder.sandbox.execution import load_probes

    with pytest.raises(build.BuildError, match=r"cell \d+ has outputs or an execution count; clear them"):
        build.check_master(a, nb, load_probes(a.probes_file))


def test_a_build_error_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograder.cli import main

    def broken(a: object) -> None:
        raise build.BuildError("solutions/01-broadcasting/broadcasting.ipynb: cell 3 has outputs")

    monkeypatch.setattr(build, "load_sources", broken)
    assert main(["build", "01-broadcasting"]) == 1
    err = capsys.readouterr().err
    assert err == "build failed: solutions/01-broadcasting/broadcasting.ipynb: cell 3 has outputs\n"
