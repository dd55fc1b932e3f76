"""Command line: parses arguments and hands them to each verb's ``main``; nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from .config import ConfigError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m autograder", description="Build, grade, validate and export the JAX course."
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="build the student release and the Gradescope autograder zips")
    b.add_argument("assignments", nargs="*", help="assignment ids (default: all in course.yml)")

    def grading_flags(q: argparse.ArgumentParser) -> None:
        q.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
        q.add_argument(
            "--jobs", type=int, default=None, help="submissions graded at once (default: CPU count)"
        )
        q.add_argument(
            "--cpu-devices", type=int, default=None, help="virtual CPU devices for JAX (default: course.yml)"
        )
        q.add_argument("--quiet", action="store_true", default=None, help="no progress bar")

    g = sub.add_parser("grade", help="grade a notebook, a folder or a zip of submissions")
    g.add_argument("assignment")
    g.add_argument("submissions", type=Path)
    g.add_argument(
        "--out", type=Path, required=True, help="folder for gradebook.csv, results/, feedback/, report.html"
    )
    g.add_argument("--regrade", action="store_true", help="grade again what OUT already holds")
    grading_flags(g)
    g.add_argument("--cell-seconds", type=float, default=None)
    g.add_argument("--submission-seconds", type=float, default=None)
    g.add_argument("--memory-mb", type=int, default=None)
    g.add_argument("--processes", type=int, default=None)
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the batch's seed (default: drawn afresh for a new OUT, kept in OUT/batch.json); "
        "give one to reproduce a batch",
    )
    g.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="grade on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786)",
    )
    g.add_argument(
        "--cluster",
        default=None,
        metavar="local:N",
        help="grade on a Dask LocalCluster of N worker processes started for this run",
    )

    v = sub.add_parser("validate", help="build, then prove reference, stub, known-wrong answers and release")
    v.add_argument("assignments", nargs="*", help="assignment ids (default: all in course.yml)")
    grading_flags(v)

    e = sub.add_parser("export-nbgrader", help="write the course as an nbgrader course directory")
    e.add_argument("out", type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    from .build import BuildError
    from .notebooks import NotebookError
    from .submissions import UsageError

    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            from . import build

            build.main(assignments=args.assignments or None)
            return 0
        if args.command == "grade":
            from . import grade

            return grade.main(
                assignment=args.assignment,
                submissions=args.submissions,
                out=args.out,
                device=args.device,
                jobs=args.jobs,
                regrade=args.regrade,
                quiet=args.quiet,
                cpu_devices=args.cpu_devices,
                cell_seconds=args.cell_seconds,
                submission_seconds=args.submission_seconds,
                memory_mb=args.memory_mb,
                processes=args.processes,
                seed=args.seed,
                scheduler=args.scheduler,
                cluster=args.cluster,
            )
        if args.command == "validate":
            from . import validate

            return validate.main(
                assignments=args.assignments or None,
                device=args.device,
                jobs=args.jobs,
                cpu_devices=args.cpu_devices,
                quiet=args.quiet,
            )
        if args.command == "export-nbgrader":
            from . import export_nbgrader

            export_nbgrader.main(out=args.out)
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
        if args.debug or os.environ.get("AUTOGRADER_DEBUG"):
            traceback.print_exc()
        print(
            f"internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)", file=sys.stderr
        )
        return 1
    return 2
