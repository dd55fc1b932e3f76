"""In-process check of an assignment's probes while writing it (no sandbox, no build):

    python -m autograder.selfcheck 01-broadcasting [-q q3]

Runs the master's reference solution, the stub and every known-wrong answer under
``solutions/<assignment>/mutants/`` through the hidden probes and prints which pass. The real gate is
``python -m autograder validate``; this is the quick loop for authors.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config import load_course
from .master_format import stub_source
from .notebooks import code_cells, insert_after_definition, typed_nbformat
from .probing import Probe, ProbeSet, decode_run, judge_probe, probe_seed, run_probe, score_question
from .sandbox.execution import load_probes, run_cells


def score(probes: list[Probe], env: dict[str, Any], ref: dict[str, Any], seed: int) -> dict[str, str | None]:
    return {
        p.id: judge_probe(p, decode_run(run_probe(p, env, probe_seed(seed, p.id))), ref[p.id]) for p in probes
    }


def question_scores(
    hidden: ProbeSet, questions: Mapping[str, float], problems: Mapping[str, str | None]
) -> dict[str, tuple[float, list[str]]]:
    """``{question: (earned, messages)}`` of ``questions`` (name -> points)."""
    out = {}
    for q, points in questions.items():
        probes = [p for p in hidden.for_question(q) if p.id in problems]
        if probes:
            out[q] = score_question(probes, hidden.points(q, points), problems)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("-q", "--question", help="only this question")
    args = parser.parse_args(argv)
    course = load_course(check_files=False)
    a = course.assignment(args.assignment)
    nb = typed_nbformat().read(a.master, as_version=4)
    probes = load_probes(a.probes_file)
    seed = course.grading.seed
    questions = a.points
    cells = code_cells(nb)
    ok = True

    ref_env, errors = run_cells(cells)
    for e in errors:
        print("reference:", e)
        ok = False
    selected = [p for p in probes.probes if not args.question or p.question == args.question]
    ref: dict[str, Any] = {}
    for p in selected:
        r1 = decode_run(run_probe(p, ref_env, probe_seed(seed, p.id)))
        ref[p.id] = r1
        if not r1["ok"]:
            print(f"REFERENCE FAILS {p.id}: {r1['error']}")
            ok = False
            continue
        problem = judge_probe(p, decode_run(run_probe(p, ref_env, probe_seed(seed, p.id))), r1)
        if problem:
            print(f"REFERENCE NOT DETERMINISTIC {p.id}: {problem}")
            ok = False
    if not ok:
        return 1
    for q in questions:
        if not probes.for_question(q):
            print(f"NO PROBES for {q}")
            ok = False

    stub_env, _ = run_cells([stub_source(c) for c in cells])
    stub_scores = question_scores(probes, questions, score(selected, stub_env, ref, seed))
    for q, (earned, _) in stub_scores.items():
        if earned:
            print(f"STUB SCORES {earned} on {q}")
            ok = False

    for path in sorted(Path(a.mutants_dir).glob("q*.py")):
        q = path.name.split("_", 1)[0]
        if args.question and q != args.question:
            continue
        fns = a.questions[q].functions if q in a.questions else None
        if not fns:
            print(f"{path.name}: {q} is not a question of {a.id}")
            ok = False
            continue
        try:
            env, _ = run_cells(insert_after_definition(cells, fns, path.read_text()))
            results = score(probes.for_question(q), env, ref, seed)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            ok = False
            continue
        earned, failed = question_scores(probes, {q: questions[q]}, results)[q]
        status = "caught" if earned < questions[q] else "NOT CAUGHT"
        ok &= earned < questions[q]
        print(f"{path.name:40s} {status} ({earned:g}/{questions[q]:g}): {failed[0] if failed else ''}")
    print("selfcheck", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
