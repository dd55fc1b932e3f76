"""course.yml is checked on load: a wrong key, type or missing file is one line naming both."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from autograder.config import COURSE_FILE, ConfigError, load_course


def test_the_course_loads_with_all_six_assignments() -> None:
    course = load_course()
    assert [a.id for a in course.assignments] == [
        "01-broadcasting",
        "02-prng",
        "03-autodiff",
        "04-jit",
        "05-pmap",
        "06-training",
    ]
    pmap = course.assignment("05-pmap")
    assert (pmap.devices.cpu_devices, pmap.devices.min_devices) == (8, 2)
    assert course.limits_for(pmap).cell_seconds == course.grading.limits.cell_seconds


def broken(tmp_path: Path, change: callable) -> str:
    data = yaml.safe_load(COURSE_FILE.read_text())
    change(data)
    path = tmp_path / "course.yml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        load_course(path, check_files=False)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_unknown_key_is_named(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][1]["deadline"] = "soon"

    assert broken(tmp_path, change).endswith("course.yml: assignments[1].deadline: unknown key")


def test_wrong_type_says_what_is_expected(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["grading"]["limits"]["memory_mb"] = "lots"

    message = broken(tmp_path, change)
    assert "grading.limits.memory_mb" in message and "integer" in message and "'lots'" in message


def test_bad_date_is_named(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][0]["due"] = "next friday"

    message = broken(tmp_path, change)
    assert "assignments[0].due" in message and "date" in message


def test_missing_key_is_named(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        del d["grading"]["seed"]

    assert broken(tmp_path, change).endswith("grading.seed: missing (required)")


def test_duplicate_assignment_id(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"].append(dict(d["assignments"][0]))

    assert "id '01-broadcasting' appears twice" in broken(tmp_path, change)


def test_bad_question_name(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][0]["questions"]["question1"] = {"points": 1, "functions": ["f"]}

    assert "question names look like q1" in broken(tmp_path, change)


def test_every_assignment_totals_the_course_points() -> None:
    course = load_course()
    assert course.grading.points == 100
    for a in course.assignments:
        assert sum(a.points.values()) == course.grading.points, a.id
        assert all(isinstance(p, int) and p > 0 for p in a.points.values()), a.id


def test_points_that_do_not_add_up_are_named(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][1]["questions"]["q3"]["points"] += 2

    assert broken(tmp_path, change).endswith(
        "course.yml: assignments[1].questions: 02-prng's points add up to 102, not grading.points (100)"
    )


def test_points_are_whole_numbers(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][0]["questions"]["q2"]["points"] = 7.5

    message = broken(tmp_path, change)
    assert "assignments[0].questions.q2.points" in message and "integer" in message and "7.5" in message


def test_a_question_without_points_is_named(tmp_path: Path) -> None:
    def change(d: dict) -> None:
        d["assignments"][0]["questions"]["q2"] = ["outer"]

    assert "assignments[0].questions.q2" in broken(tmp_path, change)


def test_missing_master_is_named(tmp_path: Path) -> None:
    data = yaml.safe_load(COURSE_FILE.read_text())
    data["assignments"][2]["notebook"] = "nothere.ipynb"
    path = tmp_path / "course.yml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(
        ConfigError,
        match=r"assignments\[2\]\.notebook: solutions/03-autodiff/nothere"
        r"\.ipynb does not exist",
    ):
        load_course(path)


def test_invalid_yaml_gives_the_line(tmp_path: Path) -> None:
    path = tmp_path / "course.yml"
    path.write_text("name: x\ngrading: [unclosed\n")
    with pytest.raises(ConfigError, match=r"not valid YAML at line \d"):
        load_course(path)
