"""Fails (exit 1, one line) unless the gradebook ``make demo`` wrote is the demo's table: perfect
full marks, partial some but not all, the stub 0, the broken notebook invalid."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

EXPECTED = {
    "perfect.ipynb": lambda status, total, possible: status == "graded" and total == possible,
    "partial.ipynb": lambda status, total, possible: status == "graded" and 0 < total < possible,
    "stub.ipynb": lambda status, total, possible: status == "graded" and total == 0,
    "broken.ipynb": lambda status, total, possible: status == "invalid",
}


def main(path: Path) -> int:
    try:
        rows = {r["submission"]: r for r in csv.DictReader(path.read_text(encoding="utf-8").splitlines())}
    except OSError as e:
        print(f"{path}: cannot read the demo's gradebook ({e.strerror})", file=sys.stderr)
        return 1
    for name, ok in EXPECTED.items():
        row = rows.get(name)
        if row is None or not ok(row["status"], float(row["total"]), float(row["possible"])):
            got = "no row" if row is None else f"{row['status']}, {row['total']} / {row['possible']}"
            print(f"{path}: {name} is not as the demo expects ({got})", file=sys.stderr)
            return 1
    print(f"{path}: the demo's table is as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
