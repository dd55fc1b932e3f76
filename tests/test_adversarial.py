"""Hostile submissions: each costs only its own points, never the grader its run or another row.

Every attack is the perfect 01-broadcasting notebook's graded cells (its teaching demos left out,
as `validate` does for known-wrong answers) plus one hostile cell, graded together in one batch
by the real grader (sandbox included); the control is the same cells alone. A notebook that
should have been stopped but was not makes `outer` (q2) wrong, so a leak shows up as lost points.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder import grade
from autograder.config import ROOT, load_course
from autograder.validate import graded_cells

pytestmark = pytest.mark.assignment("01-broadcasting")

# Defines a wrong `outer` when `LEAK` is true: a sandbox escape costs visible points.
BETRAY = """
if LEAK:
    def outer(x, y):
        return x[:, None] * y[None, :] + 1.0
"""

SECRETS = [
    str(ROOT / "solutions" / "01-broadcasting" / "broadcasting.ipynb"),
    str(ROOT / "solutions" / "01-broadcasting" / "probes.py"),
    str(ROOT / "build" / "01-broadcasting" / "reference.ipynb"),
    str(ROOT / "course.yml"),
]

ATTACKS: dict[str, tuple[str, str, str]] = {
    # name: (cell, expected status, expected score: "full" | "zero" | "q2-lost")
    "replace_jnp_allclose": (
        "import jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
    "replace_np_testing": (
        "import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None",
        "tampered",
        "zero",
    ),
    "replace_builtin": ("import builtins\nbuiltins.isinstance = lambda *a: True", "tampered", "zero"),
    "delete_builtin": ("import builtins\ndel builtins.sorted", "tampered", "zero"),
    "patch_code_object": (
        "import numpy as np\nnp.testing.assert_array_equal.__code__ = (lambda *a, **k: None).__code__",
        "tampered",
        "zero",
    ),
    "replace_grader_helper": (
        "import autograder.probing as p\np.compare_value = lambda *a, **k: None\n"
        "p.judge_probe = lambda *a, **k: None",
        "tampered",
        "zero",
    ),
    "replace_grader_module": (
        "import sys, types\nsys.modules['autograder.probing'] = types.ModuleType('x')",
        "tampered",
        "zero",
    ),
    "replace_json": ("import json\njson.dumps = lambda *a, **k: '{}'", "tampered", "zero"),
    "tamper_later_in_thread": (
        "import threading, time, jax.numpy as jnp\n"
        "def later():\n    time.sleep(0.3)\n    jnp.allclose = lambda *a, **k: True\n"
        "threading.Thread(target=later, daemon=True).start()\n"
        "def outer(x, y):\n    time.sleep(0.5)\n    return x[:, None] * y[None, :]",
        "tampered",
        "zero",
    ),
    "eq_always_true": (
        "class Yes:\n    def __eq__(self, other): return True\n    shape = (5, 3)\n"
        "def outer(x, y):\n    return Yes()",
        "graded",
        "q2-lost",
    ),
    "fake_array": (
        "import numpy as np\nclass Fake:\n    def __array__(self, *a, **k): return np.zeros((5, 3))\n"
        "    shape = (5, 3)\n    dtype = np.float32\ndef outer(x, y):\n    return Fake()",
        "graded",
        "q2-lost",
    ),
    "lying_ndarray_subclass": (
        "import numpy as np\nclass Liar(np.ndarray):\n"
        "    def __eq__(self, other): return np.ones(self.shape, bool)\n"
        "def outer(x, y):\n    return np.zeros((len(x), len(y)), np.float32).view(Liar)",
        "graded",
        "q2-lost",
    ),
    "infinite_loop_top_level": ("while True:\n    pass", "timeout", "zero"),
    "infinite_loop_in_function": ("def outer(x, y):\n    while True:\n        pass", "timeout", "q2-lost"),
    "sleep_forever": ("import time\ntime.sleep(10_000)", "timeout", "zero"),
    "memory_bomb": ("import numpy as np\nhog = np.ones((40_000, 40_000))", "memory", "zero"),
    # The process limit stops the bomb from growing; it never ends, so the cell times out.
    "fork_bomb": ("import os\nwhile True:\n    os.fork()", "timeout", "zero"),
    "segfault": ("import ctypes\nctypes.string_at(0)", "crashed", "zero"),
    "os_exit": ("import os\nos._exit(0)", "crashed", "zero"),
    "sys_exit": ("import sys\nsys.exit(0)", "crashed", "zero"),
    "keyboard_interrupt_in_function": ("def outer(x, y):\n    raise KeyboardInterrupt", "graded", "q2-lost"),
    "recursion_bomb": ("def outer(x, y):\n    return outer(x, y)", "graded", "q2-lost"),
    "print_megabytes": ("print('x' * 50_000_000)", "graded", "full"),
    # The file-size limit turns the write into an error (Python ignores SIGXFSZ): nothing breaks.
    "write_fd_without_end": ("import os\nwhile True:\n    os.write(1, b'x' * 2**20)", "graded", "full"),
    "read_secrets": (
        f"LEAK = False\nfor p in {SECRETS!r}:\n    try:\n        open(p).read(1)\n"
        f"        LEAK = True\n    except OSError:\n        pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "search_for_hidden_tests": (
        "import os\nLEAK = False\nfor top in ['/work', '/root', '/tmp', '/home', '/srv']:\n"
        "    for d, _, files in os.walk(top):\n"
        "        if 'probes.py' in files or 'reference.ipynb' in files:\n"
        f"            LEAK = True\n{BETRAY}",
        "graded",
        "full",
    ),
    "subprocess_reads_secrets": (
        "import subprocess\nLEAK = subprocess.run(['cat', "
        f"{SECRETS[1]!r}], capture_output=True).returncode == 0\n{BETRAY}",
        "graded",
        "full",
    ),
    # The reference run's compiled XLA programs are shared with every submission: read-only,
    # or one student could plant a wrong program for another student's computation.
    "poison_compilation_cache": (
        "import jax\nfrom pathlib import Path\n"
        "cache = Path(jax.config.jax_compilation_cache_dir or '/nonexistent')\n"
        "entries = sorted(cache.iterdir())[:3] if cache.is_dir() else []\n"
        "LEAK = not entries  # no shared cache to attack: this attack tested nothing\n"
        "for target in [cache / 'planted', *entries]:\n"
        "    try:\n        with open(target, 'ab') as f:\n            f.write(b'x')\n"
        f"        LEAK = True\n    except OSError:\n        pass\n{BETRAY}",
        "graded",
        "full",
    ),
    # The compilation cache sits in the reference store beside the expected outputs
    # (reference.json): a sandbox may read the programs, never the answers next to them.
    "read_reference_outputs": (
        "import jax\nfrom pathlib import Path\n"
        "cache = jax.config.jax_compilation_cache_dir\n"
        "LEAK = not cache  # no store to attack: this attack tested nothing\n"
        "if cache:\n    for name in ['reference.json', '.lock']:\n        try:\n"
        "            (Path(cache).parent / name).read_bytes()\n            LEAK = True\n"
        f"        except OSError:\n            pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "write_results_and_gradebook": (
        "import os, json\nfrom pathlib import Path\nLEAK = False\n"
        "for up in Path.cwd().parents:\n"
        "    for target in [up / 'gradebook.csv', up / 'results' / 'x.json']:\n"
        "        try:\n            target.write_text('hacked')\n            LEAK = True\n"
        f"        except OSError:\n            pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "kill_the_grader": (
        "import os, signal\nfor pid in [os.getppid(), 1]:\n    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\n"
        "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass",
        "graded",
        "full",
    ),
    "network": (
        "import socket\nLEAK = False\ntry:\n    socket.create_connection(('127.0.0.1', 22), timeout=1)\n"
        f"    LEAK = True\nexcept OSError:\n    pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "forge_channel": (
        "import os, stat\nfor fd in range(3, 64):\n    try:\n"
        "        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "            os.write(fd, b'\\x00\\x00\\x00\\x05hello')\n    except OSError:\n        pass",
        "tampered",
        "zero",
    ),
    "daemon_outlives_run": (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\n    os._exit(0)",
        "graded",
        "full",
    ),
    "huge_output_array": (
        "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.ones((60_000, 60_000))",
        "memory",
        "q2-lost",
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict], Path]:
    from autograder import build

    course = load_course()
    a = course.assignment("01-broadcasting")
    tmp = tmp_path_factory.mktemp("adversarial")
    build.build_assignment(a, course, release_root=tmp / "release", build_root=ROOT / "build")
    functions = list(a.function_question())
    reference = graded_cells(
        nbformat.read(ROOT / "build" / a.id / "reference.ipynb", as_version=4), functions
    )
    subs = tmp / "subs"
    subs.mkdir()
    nbformat.write(reference, subs / "control.ipynb")
    for name, (cell, _, _) in ATTACKS.items():
        nb = nbformat.from_dict(json.loads(json.dumps(reference)))
        nb.cells.append(nbformat.v4.new_code_cell(cell))
        nbformat.write(nb, subs / f"{name}.ipynb")
    out = tmp / "out"
    status = grade.main(
        assignment=a.id,
        submissions=subs,
        out=out,
        jobs=2,
        quiet=True,
        cell_seconds=5,
        submission_seconds=60,
        memory_mb=1536,
        course=course,
    )
    assert status == 0
    results = {
        p.name.removesuffix(".ipynb.json"): json.loads(p.read_text())
        for p in (out / "results").glob("*.json")
    }
    return results, out


def test_at_least_25_attacks() -> None:
    assert len(ATTACKS) >= 25


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_costs_only_its_own_points(graded: tuple[dict[str, dict], Path], name: str) -> None:
    results, _ = graded
    _, status, score = ATTACKS[name]
    row = results[name]["extra_data"]
    control = results["control"]["extra_data"]
    assert control["status"] == "graded"
    assert sum(control["questions"].values()) == control["possible"]
    assert row["status"] == status, results[name]["output"]
    total = sum(row["questions"].values())
    if score == "full":
        assert total == row["possible"], results[name]["output"]
    elif score == "zero":
        assert total == 0
    else:
        assert row["questions"]["q2"] == 0
        assert 0 < total < row["possible"], results[name]["output"]
    message = results[name]["output"]
    assert "Traceback" not in message and len(message) < 600


def test_tampering_names_its_evidence(graded: tuple[dict[str, dict], Path]) -> None:
    results, _ = graded
    assert "replaced jax.numpy.allclose" in results["replace_jnp_allclose"]["output"]
    assert "deleted builtins.sorted" in results["delete_builtin"]["output"]


def test_every_attack_has_exactly_one_row(graded: tuple[dict[str, dict], Path]) -> None:
    _, out = graded
    rows = (out / "gradebook.csv").read_text().splitlines()[1:]
    names = sorted(r.split(",", 1)[0] for r in rows)
    assert names == sorted([f"{n}.ipynb" for n in ATTACKS] + ["control.ipynb"])


@pytest.mark.skipif(os.geteuid() != 0, reason="per-job user ids exist only when grading as root")
def test_nothing_outlives_the_batch(graded: tuple[dict[str, dict], Path]) -> None:
    from autograder.sandbox.limits import sandbox_uid

    mine = {sandbox_uid(slot) for slot in range(8)}
    ps = subprocess.run(["ps", "-eo", "uid="], capture_output=True, text=True).stdout.split()
    assert not [u for u in ps if int(u) in mine]
