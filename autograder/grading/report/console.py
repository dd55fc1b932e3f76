"""What ``grade`` tells the person who runs it: what it is doing and how far it got (stderr),
then the result (stdout).

On a terminal progress is a bar; anywhere else (CI, ``nohup``, a log file) it is one plain line
per submission, so that a log shows what happened. ``--quiet`` keeps only warnings and errors.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from statistics import mean, median
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ..records import Record

#: Rows of the summary table printed at the end; the gradebook holds them all.
SUMMARY_ROWS = 40


def _points(x: float) -> str:
    return f"{x:g}"


def plural(n: int, noun: str) -> str:
    """``1 submission``, ``2 submissions``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


class Console:
    """Prints for people: ``say`` is progress (dropped when quiet), ``warn`` always shows."""

    def __init__(self, *, quiet: bool, stream: TextIO | None = None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = _isatty(self.stream)
        self.bar: Any = None
        """the progress bar on the screen, if any: a line said meanwhile goes above it (a Dask
        run says where it grades once the bar is up)"""

    def say(self, text: str) -> None:
        if not self.quiet:
            self.warn(text)

    def warn(self, text: str) -> None:
        if self.bar is not None:
            type(self.bar).write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def progress(self, total: int) -> Progress:
        return Progress(self, total)


class Progress:
    """One step per graded submission: a bar on a terminal, ``[3/40] alice.ipynb: graded,
    12.5 / 16`` elsewhere."""

    def __init__(self, console: Console, total: int):
        self.console, self.total, self.done = console, total, 0
        self.bar: Any = None
        if total and not console.quiet and console.tty:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="submission", file=console.stream, dynamic_ncols=True)
            console.bar = self.bar

    def update(self, record: Record) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{record.submission[:30]}: {record.status}", refresh=False)
            self.bar.update(1)
        else:
            self.console.say(
                f"[{self.done}/{self.total}] {record.submission}: {record.status}, "
                f"{_points(record.total)} / {_points(record.possible)}"
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            if self.console.bar is self.bar:
                self.console.bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def status_counts(records: Sequence[Record]) -> str:
    """``3 graded, 1 invalid``, most frequent first."""
    counts = Counter(r.status for r in records)
    return ", ".join(f"{n} {status}" for status, n in counts.most_common())


def summary_text(
    records: Sequence[Record], questions: Sequence[str], out: Path, *, graded: int, kept: int
) -> str:
    """The table ``make demo`` shows (one row per submission, without the message), what this
    run did, and where the files are."""
    from tabulate import tabulate

    lines = []
    if records:
        rows = [
            [
                r.submission,
                *(_points(r.questions[q]) if q in r.questions else "" for q in questions),
                _points(r.total),
                _points(r.possible),
                r.status,
            ]
            for r in records[:SUMMARY_ROWS]
        ]
        lines.append(
            tabulate(
                rows, headers=["submission", *questions, "total", "possible", "status"], disable_numparse=True
            )
        )
        if len(records) > SUMMARY_ROWS:
            lines.append(f"... and {len(records) - SUMMARY_ROWS} more rows in gradebook.csv")
        totals = [r.total for r in records]
        lines.append("")
        run = f"graded {graded} now" + (f", kept {kept} from the previous run" if kept else "")
        lines.append(
            f"{plural(len(records), 'submission')} ({status_counts(records)}); {run}. Score: mean "
            f"{mean(totals):.2f}, median {median(totals):.2f} of {_points(records[0].possible)}."
        )
        errors = sum(r.status == "error" for r in records)
        if errors:
            lines.append(
                f"{errors} failed in the grader (status error, not the students' fault): "
                "rerun with --regrade to grade them again."
            )
    else:
        lines.append("No submissions.")
    lines.append(
        f"gradebook: {out / 'gradebook.csv'}   feedback: {out / 'feedback'}/   report: {out / 'report.html'}"
    )
    return "\n".join(lines)
