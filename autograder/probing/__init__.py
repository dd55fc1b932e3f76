"""Hidden tests as probes: the one definition both graders use.

A *probe* calls a submission's functions on inputs it makes itself and returns plain data
(arrays, numbers, strings, lists of them). A *judge* compares that data with what the same probe
returned for the reference solution, or checks a property of it, and returns ``None`` (pass) or
one sentence saying what is wrong.

Our grader never runs the two halves in one process: probes run in the sandbox beside student
code, their outputs cross a pipe as JSON and ``.npy`` bytes, and judges run in the grader on
that decoded data, against reference outputs computed in a process that never ran student code.
The otter autograder and the nbgrader export ship this package too and run both halves inside
the student's kernel (otter's own model) through :func:`otter_check`, so both paths score honest
work the same way.

The package, each module importing only those above it (and ``_captured``, the builtins bound
before student code runs):

- :mod:`.plain`: the plain-data codec (what crosses the pipe), :class:`ProbeError`;
- :mod:`.api`: :class:`Probe`, :class:`ProbeSet` and its decorator, points and seeds;
- :mod:`.compare`: judging in the grader: the tolerance table, comparisons, student messages;
- :mod:`.running`: running a probe beside the submission: the ``sub`` namespaces, exceptions;
- :mod:`.helpers`: helpers for probe authors (source, loops, jaxprs, traces, arrays);
- :mod:`.judges`: judges several assignments share, each with the body helper it reads;
- :mod:`.otter_bridge`: both halves in the student's kernel.

Import every name from here (``from autograder.probing import ProbeSet, array``): the split
into modules is this package's own business. It must import nothing but the standard library and
NumPy at module level: it is copied verbatim beside otter and nbgrader hidden tests and imported
in sandboxes before student code runs.
"""

from .api import POINTS_GRID, Probe, ProbeSet, probe_rng, probe_seed, score_question, split_points
from .compare import (
    MAX_MESSAGE,
    RETURNED_NONE,
    TOLERANCES,
    compare_floats,
    compare_outputs,
    compare_value,
    describe_value,
    judge_probe,
    shorten,
    structure_problem,
    unusable_outputs,
)
from .helpers import (
    array,
    count_traces,
    forbidden_names,
    largest_intermediate,
    names_used,
    primitives,
    python_loops,
    raised,
    raises,
    run_traced,
    source_of,
    traced_equations,
)
from .judges import Judge, devices_of, fixed_size_program, not_a_figure, on_every_device, traced_counts
from .otter_bridge import otter_check, reference_env
from .plain import (
    PlainArray,
    ProbeError,
    ProbeResult,
    decode_outputs,
    decode_run,
    encode_outputs,
    flatten_outputs,
)
from .running import (
    Namespace,
    SourceFunction,
    SourceNamespace,
    describe_exception,
    is_out_of_memory,
    run_probe,
)

__all__ = [
    "MAX_MESSAGE",
    "POINTS_GRID",
    "RETURNED_NONE",
    "TOLERANCES",
    "Judge",
    "Namespace",
    "PlainArray",
    "ProbeResult",
    "Probe",
    "ProbeError",
    "ProbeSet",
    "SourceFunction",
    "SourceNamespace",
    "array",
    "compare_floats",
    "compare_outputs",
    "compare_value",
    "count_traces",
    "decode_outputs",
    "decode_run",
    "describe_exception",
    "describe_value",
    "devices_of",
    "encode_outputs",
    "fixed_size_program",
    "flatten_outputs",
    "forbidden_names",
    "is_out_of_memory",
    "judge_probe",
    "largest_intermediate",
    "names_used",
    "not_a_figure",
    "on_every_device",
    "otter_check",
    "primitives",
    "run_traced",
    "probe_rng",
    "probe_seed",
    "python_loops",
    "raised",
    "raises",
    "reference_env",
    "run_probe",
    "score_question",
    "shorten",
    "source_of",
    "split_points",
    "structure_problem",
    "traced_counts",
    "traced_equations",
    "unusable_outputs",
]
