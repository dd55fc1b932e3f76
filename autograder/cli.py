"""Command line: parses arguments and hands them to each verb's ``main``; nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import Any, NoReturn

from .errors import BuildError, ConfigError, NotebookError, UsageError


class _Parser(argparse.ArgumentParser):
    """A usage error is one line and exit status 2, like every other usage error of the tool."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: must be at least 1")
    return n


def _parser() -> argparse.ArgumentParser:
    # --debug is accepted before or after the subcommand; SUPPRESS keeps a subcommand's
    # default from overwriting a --debug given before it (so no set_defaults: the action is
    # shared), and main reads it with getattr.
    debug = _Parser(add_help=False)
    debug.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks of internal errors"
    )
    p = _Parser(
        prog="autograder",
        description="Build, grade, validate and export the JAX course.",
        parents=[debug],
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add(name: str, **kw: Any) -> argparse.ArgumentParser:
        # A flag not given is absent from the parsed arguments, so each verb's ``main`` holds
        # the one default (the help text only says what it is).
        return sub.add_parser(name, parents=[debug], argument_default=argparse.SUPPRESS, **kw)

    b = add("build", help="build the student release and the Gradescope autograder zips")
    b.add_argument("assignments", nargs="*", help="assignment ids (default: all in course.yml)")

    def grading_flags(q: argparse.ArgumentParser) -> None:
        q.add_argument("--device", choices=("cpu", "gpu"), help="where JAX runs (default: cpu)")
        q.add_argument("--jobs", type=_count, help="submissions graded at once (default: CPU count)")
        q.add_argument("--cpu-devices", type=_count, help="virtual CPU devices for JAX (default: course.yml)")
        q.add_argument("--quiet", action="store_true", help="print only warnings and errors (no progress)")

    g = add("grade", help="grade a notebook, a folder or a zip of submissions")
    g.add_argument("assignment")
    g.add_argument("submissions", type=Path)
    g.add_argument(
        "--out", type=Path, required=True, help="folder for gradebook.csv, results/, feedback/, report.html"
    )
    g.add_argument("--regrade", action="store_true", help="grade again what OUT already holds")
    grading_flags(g)
    g.add_argument("--cell-seconds", type=float, help="time limit of one cell (default: course.yml)")
    g.add_argument(
        "--submission-seconds", type=float, help="time limit of one submission (default: course.yml)"
    )
    g.add_argument("--memory-mb", type=int, help="memory limit of a sandbox (default: course.yml)")
    g.add_argument("--processes", type=int, help="process limit of a sandbox (default: course.yml)")
    g.add_argument(
        "--seed",
        type=int,
        help="the batch's seed (default: drawn afresh for a new OUT, kept in OUT/batch.json); "
        "give one to reproduce a batch",
    )
    g.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786)",
    )
    g.add_argument(
        "--cluster",
        metavar="local:N",
        help="grade on a Dask LocalCluster of N worker processes started for this run",
    )
    g.add_argument(
        "--roster",
        type=Path,
        metavar="CSV",
        help="the class: a CSV with columns id and name (optional: email, username, idnumber, "
        "participant, canvas_id, sis_user_id, sis_login_id, section, orgdefinedid, sid; "
        "Brightspace's and Blackboard's class lists work as they are); names each row's student "
        "and lists who submitted nothing in OUT/missing.csv",
    )
    g.add_argument(
        "--lms",
        action="append",
        choices=("canvas", "moodle", "blackboard", "brightspace", "gradescope"),
        help="also write OUT/<lms>-import.csv, the grades as that LMS imports them (repeatable)",
    )
    g.add_argument(
        "--lms-column",
        metavar="NAME",
        help="the grade column's name in the import files (Canvas: the assignment's 'Name (id)' as "
        "in its gradebook export; Blackboard: 'Name [Total Pts: 40 Score] |id' as in its "
        "download; default: a new column named after the assignment's title)",
    )

    v = add("validate", help="build, then prove reference, stub, known-wrong answers and release")
    v.add_argument("assignments", nargs="*", help="assignment ids (default: all in course.yml)")
    grading_flags(v)

    r = add(
        "review",
        help="list the questions held for your review in OUT, or decide one (kept or broken)",
    )
    r.add_argument("out", type=Path, help="the folder `grade` wrote")
    r.add_argument("submission", nargs="?", help="the submission's name, as in gradebook.csv")
    r.add_argument("question", nargs="?", help="the held question (q3)")
    r.add_argument("decision", nargs="?", help="kept or broken: whether the answer keeps the rule")

    e = add("export-nbgrader", help="write the course as an nbgrader course directory")
    e.add_argument("out", type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    given = {k: v for k, v in vars(args).items() if k not in ("command", "debug")}
    if not given.get("assignments", True):
        del given["assignments"]  # none named: every assignment of course.yml
    try:
        if args.command == "build":
            from .release import build

            build.main(**given)
            return 0
        if args.command == "grade":
            from .grading import batch as grade
            from .grading.options import GradeOptions

            return grade.run(GradeOptions(**given))
        if args.command == "validate":
            from .release import validate

            return validate.main(**given)
        if args.command == "review":
            from .grading import review

            return review.main(**given)
        if args.command == "export-nbgrader":
            from .release import nbgrader as export_nbgrader

            export_nbgrader.main(**given)
            return 0
    except (ConfigError, UsageError, NotebookError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - one line for people, the traceback on request
        debug = getattr(args, "debug", False) or os.environ.get("AUTOGRADER_DEBUG")
        if debug:
            traceback.print_exc()
        hint = "" if debug else " (rerun with --debug for the traceback)"
        print(f"internal error: {type(e).__name__}: {e}{hint}", file=sys.stderr)
        return 1
    return 2
