"""Hostile submissions: each costs only its own points, never the grader its run or another row.

Every attack is the perfect 01-broadcasting notebook's graded cells (its teaching demos left out,
as `validate` does for known-wrong answers) plus one hostile cell, graded together in one batch
by the real grader (sandbox included); the control is the same cells alone. A notebook that
should have been stopped but was not makes `outer` (q2) wrong, so a leak shows up as lost points.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from autograder.config import ROOT, load_course
from autograder.grading import batch as grade
from autograder.grading import records
from autograder.grading.options import GradeOptions
from autograder.release.validate import graded_cells

pytestmark = pytest.mark.assignment("01-broadcasting")

# Ends the notebook when `LEAK` is true: a sandbox escape shows as a `crashed` row with lost
# points. (It does not rebind `outer`: a function rebound at run time fails its source gate.)
BETRAY = """
if LEAK:
    import sys
    sys.exit("leaked")
"""

SECRETS = [
    str(ROOT / "solutions" / "01-broadcasting" / "broadcasting.ipynb"),
    str(ROOT / "solutions" / "01-broadcasting" / "probes.py"),
    str(ROOT / "build" / "01-broadcasting" / "reference.ipynb"),
    str(ROOT / "course.yml"),
]

# Rebinds the sandbox check's closure cell holding `changes` to a function that finds nothing
# (reachable through the garbage collector), then replaces what that check would have caught.
REBIND_THE_CHECKS_CLOSURE = (
    "import gc, types\nfor f in gc.get_objects():\n"
    "    if isinstance(f, types.FunctionType) and f.__module__ == 'autograder.sandbox.child':\n"
    "        for c in f.__closure__ or ():\n"
    "            if getattr(c.cell_contents, '__name__', '') == 'changes':\n"
    "                c.cell_contents = lambda *a, **k: []\n"
    "import jax.numpy as jnp\njnp.allclose = lambda *a, **k: True"
)

#: Splits an attack into consecutive cells.
NEXT_CELL = "\n# --- next cell ---\n"

ATTACKS: dict[str, tuple[str, str | tuple[str, ...], str]] = {
    # name: (cells, expected status, expected score: "full" | "zero" | "qN-lost")
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
    # The check itself, disarmed through what it looks up at call time; then a replacement that
    # the disarmed check would have missed.
    "disarm_the_check_helpers": (
        "import autograder.sandbox.integrity as I\nI._any = lambda it: False\n"
        "I._map = lambda *a: iter(())\nimport jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
    "disarm_the_check_function": (
        "import autograder.sandbox.integrity as I\nI._unchanged = lambda *a: True\n"
        "I.changes = lambda *a, **k: []\nimport jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
    "disarm_the_check_code": (
        "import autograder.sandbox.integrity as I\nI._unchanged.__code__ = (lambda *a: True).__code__\n"
        "import jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
    "rebind_the_checks_closure": (
        REBIND_THE_CHECKS_CLOSURE,
        "tampered",
        "zero",
    ),
    # The checks of the checks, replaced together with the closure rebinding they would catch.
    "replace_the_check_of_the_checks": (
        "import autograder.sandbox.child as C\nC._checks.__code__ = (lambda root, against: True).__code__\n"
        + REBIND_THE_CHECKS_CLOSURE,
        "tampered",
        "zero",
    ),
    # The phases after the cells, replaced: what runs the hidden tests, and the checks after them.
    "replace_the_probes_phase": (
        "import autograder.sandbox.child as C\nC._probes.__code__ = (lambda *a: None).__code__\n"
        "C._probes = lambda *a: None\nimport jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
    "replace_the_code_checker": (
        "import autograder.sandbox.integrity as I\nI.unguarded.__code__ = (lambda guarded: []).__code__\n"
        + REBIND_THE_CHECKS_CLOSURE,
        "tampered",
        "zero",
    ),
    "disarm_the_sandbox_check": (
        "import types\nimport autograder.sandbox.child as C\n"
        "C.integrity = types.SimpleNamespace(changes=lambda *a, **k: [], restore=lambda *a: None)\n"
        "import jax.numpy as jnp\njnp.allclose = lambda *a, **k: True",
        "tampered",
        "zero",
    ),
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
    # The process limit stops the bomb from growing: the cell never ends (timeout), or it ends
    # when fork fails and XLA then finds no thread to start (crashed). Never full marks.
    "fork_bomb": (
        "import os\nwhile True:\n    os.fork()",
        ("timeout", "crashed"),
        "not-full",
    ),
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
    # -- The result channel: what the probe runner looks up at call time, and its frames. ------
    "forge_probe_runner": (
        "import sys, jax.numpy as jnp\n"
        "def outer(x, y):\n    return jnp.outer(x, y)\n"
        "child = sys.modules['autograder.sandbox.child']\nreal = child.run_probe\n"
        "def forged(probe, env, seed):\n    if probe.gate:\n"
        "        src = 'def outer(x, y):\\n    return x[:, None] * y[None, :]\\n'\n"
        "        return {'ok': True, 'meta': {'source': {'json': src}, 'module': {'json': '__main__'}},"
        " 'blobs': {}}\n    return real(probe, env, seed)\n"
        "child.run_probe = forged",
        "tampered",
        "zero",
    ),
    "forge_connection_class": (
        "import multiprocessing.connection as mc, json\nreal = mc.Connection.send_bytes\n"
        "def send(self, data, *a):\n    try:\n        msg = json.loads(data)\n"
        "        if msg.get('event') == 'result':\n            msg = {**msg, 'ok': False, 'error': 'x'}\n"
        "            data = json.dumps(msg).encode()\n    except Exception:\n        pass\n"
        "    return real(self, data, *a)\nmc.Connection.send_bytes = send",
        "tampered",
        "zero",
    ),
    "hide_evidence_through_frames": (
        "import sys, jax.numpy as jnp\n"
        "def outer(x, y):\n    f = sys._getframe()\n    while f is not None:\n"
        "        for name in ('tampered', 'snap'):\n            v = f.f_locals.get(name)\n"
        "            if isinstance(v, list):\n                v.clear()\n"
        "            if isinstance(v, dict):\n                v.clear()\n        f = f.f_back\n"
        "    jnp.allclose = lambda *a, **k: True\n    return x[:, None] * y[None, :]",
        "tampered",
        "zero",
    ),
    "trace_the_grader": (
        "import sys\ndef tracer(frame, event, arg):\n    return None\nsys.settrace(tracer)",
        "tampered",
        "zero",
    ),
    "answer_for_the_probe_runner": (
        "import os, stat, json\n"
        "def outer(x, y):\n    for fd in range(3, 64):\n        try:\n"
        "            if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "                msg = json.dumps({'event': 'done'}).encode()\n"
        "                os.write(fd, len(msg).to_bytes(4, 'big') + msg)\n        except OSError:\n"
        "            pass\n    return x[:, None] * y[None, :]",
        "tampered",
        "zero",
    ),
    # A forged "done" after the gate, or results the grader did not ask for, must not pass.
    "seed_in_the_sandbox": (
        "import gc\n"
        "def _found():\n    objs = gc.get_objects()\n"
        "    return bool(list(filter(lambda o: isinstance(o, dict) and o.get('seed') == SEED, objs)))\n"
        "def outer(x, y):\n    if _found():\n        raise SystemExit('leaked')\n"
        "    return x[:, None] * y[None, :]",
        "graded",
        # gc.get_objects() can reach any namespace: every source gate fails closed (q9 and q10,
        # judged on values and the traced program alone, keep theirs); no seed is found.
        "not-full",
    ),
    # Probes make their inputs with JAX and NumPy: a submission that rewires their internals
    # (not the public names) would choose its own inputs, e.g. tame the ±1000 scores of the
    # softmax stability probe. Every function of the libraries the probes use is protected.
    "tame_probe_inputs_through_internals": (
        "import numpy as np, jax.numpy as jnp\nimport jax._src.numpy.array_constructors as ac\n"
        "_real = ac.array\ndef _tame(obj, *a, **k):\n    try:\n"
        "        obj = np.clip(np.asarray(obj), -50, 50)\n    except Exception:\n        pass\n"
        "    return _real(obj, *a, **k)\nac.array = _tame\n"
        "def softmax(x, axis=-1):\n    e = jnp.exp(x)\n    return e / e.sum(axis=axis, keepdims=True)",
        "tampered",
        "zero",
    ),
    "replace_jax_random_internals": (
        "import jax._src.random.core as r\n"
        "r._normal = lambda key, *, shape, dtype: __import__('jax').numpy.zeros(shape, dtype)",
        "tampered",
        "zero",
    ),
    # The probe runner's table of probes, found through the garbage collector: a forged entry
    # (and the Probe's own body swapped to match) would run the student's code in place of the
    # hidden test, here an unstable softmax judged through a stable one.
    "forge_probe_table": (
        "import gc, types, jax.numpy as jnp\n"
        "def _stable(x, axis=-1):\n    e = jnp.exp(x - x.max(axis=axis, keepdims=True))\n"
        "    return e / e.sum(axis=axis, keepdims=True)\n"
        "def _fake(body):\n    def fake(sub, rng):\n"
        "        return body(types.SimpleNamespace(softmax=_stable), rng)\n    return fake\n"
        "def _forge():\n    fakes = {}\n    for o in gc.get_objects():\n"
        "        if type(o).__name__ == 'Probe' and o.question == 'q5' and o.name.startswith('stable'):\n"
        "            fakes[id(o)] = _fake(o.body)\n            object.__setattr__(o, 'body', fakes[id(o)])\n"
        "    for o in gc.get_objects():\n"
        "        if type(o) is dict:\n            for k, v in list(o.items()):\n"
        "                if isinstance(v, tuple) and len(v) == 3 and id(v[0]) in fakes:\n"
        "                    o[k] = (v[0], fakes[id(v[0])], getattr(fakes[id(v[0])], '__co' + 'de__'))\n"
        "_broadcast_shape = broadcast_shape\n_done = []\n"
        "def broadcast_shape(*shapes):\n    if not _done:\n        _done.append(_forge())\n"
        "    return _broadcast_shape(*shapes)\n"
        "def softmax(x, axis=-1):\n    e = jnp.exp(x)\n    return e / e.sum(axis=axis, keepdims=True)",
        "tampered",
        "zero",
    ),
    # -- Source gates read the submitted cells, not what the sandbox says a function is. A
    # notebook that rewrites functions at run time (`__wrapped__`, `exec`) fails every gate. --
    "gate_partial_of_library": (
        "import functools, jax.numpy as jnp\nouter = functools.partial(jnp.outer)",
        "graded",
        "q2-lost",
    ),
    "gate_wrapped_decoy": (
        "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.outer(x, y)\n"
        "def _decoy(x, y):\n    return x[:, None] * y[None, :]\nouter.__wrapped__ = _decoy",
        "graded",
        "q2-lost",  # the write names `outer`: only its gate fails
    ),
    "gate_callable_object": (
        "import jax.numpy as jnp\nclass Outer:\n    def __call__(self, x, y):\n"
        "        return jnp.outer(x, y)\nouter = Outer()",
        "graded",
        "q2-lost",
    ),
    "gate_decorator_swaps_function": (
        "import jax.numpy as jnp\ndef plain(f):\n    return jnp.outer\n"
        "@plain\ndef outer(x, y):\n    return x[:, None] * y[None, :]",
        "graded",
        "q2-lost",
    ),
    "gate_rebound_later": (
        "import jax.numpy as jnp\ndef outer(x, y):\n    return x[:, None] * y[None, :]\n"
        "if True:\n    outer = jnp.outer",
        "graded",
        "q2-lost",
    ),
    # -- Privilege: no root, no capabilities, no network, nothing left behind. ----------------
    "read_shadow": (
        "LEAK = False\ntry:\n    open('/etc/shadow').read(1)\n    LEAK = True\n"
        f"except OSError:\n    pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "has_capabilities_or_root": (
        "import os\nstatus = open('/proc/self/status').read()\n"
        "eff = [l for l in status.splitlines() if l.startswith('CapEff:')][0].split()[1]\n"
        "nnp = [l for l in status.splitlines() if l.startswith('NoNewPrivs:')][0].split()[1]\n"
        f"LEAK = os.getuid() == 0 or int(eff, 16) != 0 or nnp != '1'\n{BETRAY}",
        "graded",
        "full",
    ),
    "immutable_scratch_file": (
        "import fcntl, os, struct\nopen('stuck', 'w').close()\nos.makedirs('locked/inner')\n"
        "fd = os.open('stuck', os.O_RDONLY)\ntry:\n"
        "    fcntl.ioctl(fd, 0x40086602, struct.pack('l', 0x10))\nexcept OSError:\n    pass\n"
        "os.chmod('locked', 0)",
        "graded",
        "full",
    ),
    "raw_and_udp_sockets": (
        "import socket\nLEAK = False\n"
        "for kind, proto in ((socket.SOCK_RAW, socket.IPPROTO_ICMP), (socket.SOCK_DGRAM, 0)):\n"
        "    try:\n        s = socket.socket(socket.AF_INET, kind, proto)\n"
        "        s.sendto(b'x', ('127.0.0.1', UDP_PORT))\n        LEAK = True\n"
        f"    except OSError:\n        pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "grader_environment": (
        f"import os\nLEAK = 'AUTOGRADER_TEST_SECRET' in open('/proc/self/environ').read() or "
        f"'AUTOGRADER_TEST_SECRET' in os.environ\n{BETRAY}",
        "graded",
        "full",
    ),
    "dev_shm": (
        "LEAK = False\ntry:\n    with open('/dev/shm/hog', 'wb') as f:\n        f.write(b'x' * 2**20)\n"
        f"    LEAK = True\nexcept OSError:\n    pass\n{BETRAY}",
        "graded",
        "full",
    ),
    "setsid_grandchild": (
        "import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        os.execv('/bin/sleep', ['sleep', '31337'])\n    os._exit(0)",
        "graded",
        "full",
    ),
    # -- The judge checks what the question states: a float32 one_hot, not an int one. --------
    "one_hot_wrong_dtype": (
        "import jax.numpy as jnp\ndef one_hot(labels, num_classes):\n"
        "    return (labels[..., None] == jnp.arange(num_classes)).astype(jnp.int32)",
        "graded",
        "q6-lost",
    ),
    # -- Sizes: what a sandbox sends is capped before the grader decodes it. -------------------
    "flood_of_results": (
        "import os, stat, json, numpy as np\n"
        "def outer(x, y):\n    blob = b'\\x00' * (40 * 2**20)\n    for fd in range(3, 64):\n        try:\n"
        "            if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "                os.write(fd, len(blob).to_bytes(4, 'big') + blob)\n        except OSError:\n"
        "            pass\n    return x[:, None] * y[None, :]",
        "tampered",
        "zero",
    ),
    "huge_evidence": (
        "import os, stat, json\n"
        "msg = json.dumps({'event': 'executed', 'tampered': ['x' * 5_000_000]}).encode()\n"
        "for fd in range(3, 64):\n    try:\n        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "            os.write(fd, len(msg).to_bytes(4, 'big') + msg)\n    except OSError:\n        pass",
        "tampered",
        "zero",
    ),
    # The programs a submission may read are compiled from public code (the stub), never the
    # reference's own: those would let a stub call the solution.
    "read_reference_programs": (
        "import jax\nfrom pathlib import Path\ncache = jax.config.jax_compilation_cache_dir\n"
        "LEAK = not cache  # no cache to attack: this attack tested nothing\n"
        "if cache:\n    for d in [Path(cache), *Path(cache).parent.iterdir()]:\n"
        "        if 'public' in d.name or not d.is_dir():\n            continue\n"
        "        for f in d.rglob('*'):\n            try:\n                f.read_bytes()[:1]\n"
        "                LEAK = True\n            except OSError:\n                pass\n"
        f"{BETRAY}",
        "graded",
        "full",
    ),
    "huge_output_array": (
        "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.ones((60_000, 60_000))",
        "memory",
        "q2-lost",
    ),
    # -- The result channel: what a sandbox says reaches the student bounded and redacted, so
    # the hidden tests' source never comes back in a feedback page.
    "leak_hidden_tests_through_an_error": (
        "import gc, linecache, types\n"
        "def outer(x, y):\n"
        "    text = []\n"
        "    for f in gc.get_objects():\n"
        "        if isinstance(f, types.FunctionType) and 'probes' in f.__code__.co_filename:\n"
        "            text += linecache.getlines(f.__code__.co_filename)\n"
        "    for name, lines in list(linecache.cache.items()):\n"
        "        if 'probes' in str(name):\n"
        "            text += lines[2]\n"
        "    raise ValueError(''.join(text)[:200_000] or 'nothing found')",
        "graded",
        "q2-lost",
    ),
    # -- Gates resolve names as Python does, read what runs, and fail closed.
    "gate_alias_from_library": (
        "from jax.numpy import outer as _o\ndef outer(x, y):\n    return _o(x, y)",
        "graded",
        "q2-lost",
    ),
    "gate_loop_written_as_map": (
        "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.stack(list(map(lambda a: a * y, x)))",
        "graded",
        "q2-lost",
    ),
    "gate_star_import_over_defs": (
        "import sys\nopen('helpers_mod.py', 'w').write('import jax.numpy as jnp\\nouter = jnp.outer\\n')\n"
        "sys.path.insert(0, '.')\nfrom helpers_mod import *",
        "graded",
        "q2-lost",
    ),
    "gate_match_capture_rebinds": (
        "import jax.numpy as jnp\nmatch jnp.outer:\n    case outer:\n        pass",
        "graded",
        "q2-lost",
    ),
    "gate_functools_decorator_replaces": (
        "import functools, jax.numpy as jnp\n"
        "@functools.reduce(lambda acc, _: acc, [0], lambda f: jnp.outer)\n"
        "def outer(x, y):\n    return x[:, None] * y[None, :]",
        "graded",
        "q2-lost",
    ),
    # A name added to a library's class or module at run time, then read by `outer` under a
    # name no gate forbids. Through a local the grader cannot follow, only the sandbox's count
    # of each library namespace's names finds it; through a parameter or an attribute alias,
    # the reading of the cells does.
    "gate_method_added_to_the_array_class": (
        "import jax.numpy as jnp\ndef plant():\n    C = type(jnp.zeros(1))\n"
        "    C.times = lambda a, b: jnp.outer(a, b)\nplant()\n"
        "def outer(x, y):\n    return jnp.asarray(x).times(y)",
        "graded",
        "q2-lost",
    ),
    "gate_getattr_added_to_the_array_class": (
        "import jax.numpy as jnp\ndef plant():\n    C = type(jnp.zeros(1))\n"
        "    def hook(self, name):\n        if name == 'times':\n"
        "            return lambda other: jnp.outer(self, other)\n        raise AttributeError(name)\n"
        "    C.__getattr__ = hook\nplant()\n"
        "def outer(x, y):\n    return jnp.asarray(x).times(y)",
        "graded",
        "q2-lost",
    ),
    "gate_name_added_to_a_module_by_a_helper": (
        "from jax import numpy as jnp\ndef plant(m):\n    m.times = m.outer\nplant(jnp)\n"
        "def outer(x, y):\n    return jnp.times(x, y)",
        "graded",
        "q2-lost",
    ),
    # A library attribute found by a string without `getattr` (through `operator`, a special
    # method, or annotations handed back by `typing`), and loops run by a library call: each
    # scored 100 before (issue 38's red team); each is held or failed now.
    "gate_attribute_by_operator_attrgetter": (
        "import operator, jax.numpy as jnp\n"
        "def outer(x, y):\n    return operator.attrgetter('out' + 'er')(jnp)(x, y)",
        "graded",
        "q2-lost",
    ),
    "gate_attribute_by_object_getattribute": (
        "import jax.numpy as jnp\n"
        "def outer(x, y):\n    return object.__getattribute__(jnp, 'out' + 'er')(x, y)",
        "graded",
        "q2-lost",
    ),
    "gate_library_function_in_an_annotation": (
        "import jax.numpy as jnp\ndef _h(a: jnp.outer):\n    pass\n"
        "def outer(x, y):\n    return _h.__annotations__['a'](x, y)",
        "graded",
        "q2-lost",
    ),
    "gate_string_annotation_evaluated_by_typing": (
        "import typing, jax.numpy as jnp\ndef _h(a: 'jnp.outer'):\n    pass\n"
        "def outer(x, y):\n    return typing.get_type_hints(_h)['a'](x, y)",
        "graded",
        "q2-lost",
    ),
    "gate_loop_in_numpy_vectorize": (
        "import numpy as np, jax.numpy as jnp\ndef outer(x, y):\n"
        "    f = np.vectorize(lambda a, b: a * b, otypes=[np.float32])\n"
        "    return jnp.asarray(f(np.asarray(x)[:, None], np.asarray(y)[None, :]))",
        "graded",
        "q2-lost",
    ),
    # q9 is judged on the program JAX traces; one that cannot be traced, on its source, where a
    # loop run by `np.vectorize` counts as the loop it is.
    "gate_untraceable_loop_in_numpy_vectorize": (
        "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    n, xs = x.shape[0], np.asarray(x)\n"
        "    f = np.vectorize(lambda i: xs[i] if -n <= i < n else fill, otypes=[np.float32])\n"
        "    return jnp.asarray(f(np.asarray(idx)), jnp.float32)",
        "graded",
        "q9-lost",
    ),
    # Where it cannot be traced, the source it is judged on is the grader's reading of the cells,
    # never what the sandbox finds (an alias hides `np.vectorize` there; a function made by
    # `exec` under a cell's file name shows that cell's innocent lines).
    "gate_untraceable_loop_under_an_alias": (
        "import numpy as np, jax.numpy as jnp\nfrom numpy import vectorize as _v\n"
        "def take_or_fill(x, idx, fill):\n    n, xs = x.shape[0], np.asarray(x)\n"
        "    f = _v(lambda i: xs[i] if -n <= i < n else fill, otypes=[np.float32])\n"
        "    return jnp.asarray(f(np.asarray(idx)), jnp.float32)",
        "graded",
        "q9-lost",
    ),
    "gate_untraceable_loop_made_by_exec_under_a_cells_name": (
        "def _innocent(x, idx, fill):\n    return x\nimport numpy as np, jax.numpy as jnp\n"
        "_src = '''def take_or_fill(x, idx, fill):\n    idx = np.asarray(idx)\n    n = x.shape[0]\n"
        "    xs = np.asarray(x)\n"
        "    out = np.array([xs[i] if -n <= i < n else fill for i in idx.ravel()], np.float32)\n"
        "    return jnp.asarray(out.reshape(idx.shape))\n'''\n"
        "exec(compile(_src, _innocent.__code__.co_filename, 'exec'))",
        "graded",
        "q9-lost",
    ),
    # A traced loop padded with dead operations so that its program does not grow with idx: at
    # 64 indices it is far longer than any whole-array program.
    "gate_loop_padded_to_a_constant_program": (
        "import jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n    n = x.shape[0]\n"
        "    flat = jnp.reshape(idx, (-1,))\n    outs = []\n    for i in range(flat.shape[0]):\n"
        "        outs.append(x.at[flat[i]].get(mode='fill', fill_value=fill))\n"
        "    pad = jnp.zeros((), x.dtype)\n    for _ in range(max(0, 4000 - 40 * flat.shape[0])):\n"
        "        pad = pad + 0\n"
        "    res = jnp.stack(outs).reshape(jnp.shape(idx)) if outs else jnp.zeros(jnp.shape(idx), x.dtype)\n"
        "    return (res + pad).astype(x.dtype)",
        # Its traced program is thousands of operations, which q9's value probes evaluate as
        # traced: on a loaded machine it may run out of time, which costs only its own points.
        ("graded", "timeout"),
        "q9-lost",
    ),
    # q9's values are taken from the program JAX traces, as its loop rule is: an answer that is
    # a whole-array program when traced and a Python loop when run scores what the loop scores.
    "gate_loop_unless_traced_isinstance_tracer": (
        "import jax, numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    if isinstance(idx, jax.core.Tracer):\n        return jnp.zeros(jnp.shape(idx), x.dtype)\n"
        "    n, xs = x.shape[0], np.asarray(x)\n"
        "    out = [xs[i] if -n <= i < n else fill for i in np.asarray(idx).ravel()]\n"
        "    return jnp.asarray(np.array(out, np.float32).reshape(np.shape(idx)))",
        "graded",
        "q9-lost",
    ),
    "gate_loop_unless_traced_trace_ctx": (
        "import jax, numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    if not jax.core.trace_ctx.is_top_level():\n        return jnp.zeros(jnp.shape(idx), x.dtype)\n"
        "    n, xs = x.shape[0], np.asarray(x)\n"
        "    out = [xs[i] if -n <= i < n else fill for i in np.asarray(idx).ravel()]\n"
        "    return jnp.asarray(np.array(out, np.float32).reshape(np.shape(idx)))",
        "graded",
        "q9-lost",
    ),
    "gate_loop_unless_a_tracer_refuses_numpy": (
        "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    try:\n        flat = np.asarray(idx).ravel()\n    except Exception:\n"
        "        return jnp.zeros(jnp.shape(idx), x.dtype)\n    n, xs = x.shape[0], np.asarray(x)\n"
        "    out = [xs[i] if -n <= i < n else fill for i in flat]\n"
        "    return jnp.asarray(np.array(out, np.float32).reshape(np.shape(idx)))",
        "graded",
        "q9-lost",
    ),
    # -- No socket file of the host is reachable (Landlock cannot mediate them: the root is the
    # sandbox's own).
    "host_unix_socket": (
        "import socket\nLEAK = False\ntry:\n    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "    s.connect(UNIX_SOCKET)\n    LEAK = True\nexcept OSError:\n    pass\n"
        f"{BETRAY}",
        "graded",
        "full",
    ),
    # -- Memory and disk are accounted for the whole sandbox: memfds, children, the scratch folder.
    "memfd_holds_memory": (
        "import os\nfds = []\nfor i in range(400):\n    fd = os.memfd_create(f'hog{i}')\n    try:\n"
        "        for _ in range(8):\n            os.write(fd, b'x' * 2**20)\n    except OSError:\n"
        "        pass\n    fds.append(fd)",
        ("memory", "timeout"),
        "zero",
    ),
    "children_hold_memory": (
        "import os, time\nkids = []\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
        "        hog = bytearray(1024 * 2**20)\n        time.sleep(60)\n        os._exit(0)\n"
        "    kids.append(pid)\ntime.sleep(30)",
        ("memory", "timeout"),
        "zero",
    ),
    "fill_the_disk": (
        "LEAK = False\ntry:\n    for i in range(600):\n        with open(f'big{i}', 'wb') as f:\n"
        "            f.write(b'x' * 4 * 2**20)\n    LEAK = True\nexcept OSError:\n    pass\n"
        f"{BETRAY}",
        "graded",
        "full",
    ),
    # -- The grader imports nothing a notebook names (this module runs f2py's main on import).
    "name_a_module_that_runs_on_import": ("from numpy.f2py.__main__ import main", "crashed", "zero"),
    # -- Removing a sandbox's folder survives any tree it leaves.
    "links_in_the_scratch_folder": (
        "import os\nos.symlink('/', 'root')\nos.symlink('root', 'loop_a')\nos.makedirs('d/e')\n"
        "os.symlink('../..', 'd/e/up')",
        "graded",
        "full",
    ),
    # -- Nothing the sandbox says about itself lets a score stand (issue 38). A frame the grader
    # cannot decode (3 MB of `[`, past JSON's nesting limit) is the sandbox's doing: tampered,
    # never the grader's error.
    "malformed_frame": (
        "import gc, multiprocessing.connection as mc\nfor o in gc.get_objects():\n"
        "    if isinstance(o, mc.Connection):\n        mc._ConnectionBase.send_bytes(o, b'[' * 3_000_000)",
        "tampered",
        "zero",
    ),
    # The sandbox's report of names added to a library, silenced on its own connection object,
    # then a name planted where the reading cannot see it: the gate lists the libraries' names
    # itself, in a clean process, and cannot tell what `.times` runs (q2 held, never passed).
    "silence_the_added_names_then_plant": (
        "import gc, multiprocessing.connection as mc\nfor o in gc.get_objects():\n"
        "    if isinstance(o, mc.Connection):\n        _real = o.send_bytes\n"
        "        def _quiet(data, *a, _real=_real, **k):\n"
        "            return None if b'\"added\"' in bytes(data)[:40] else _real(data, *a, **k)\n"
        "        o.send_bytes = _quiet\n"
        "for x in [type(jnp.zeros(1))]:\n    x.times = lambda a, b: jnp.outer(a, b)\n"
        "def outer(x, y):\n    return jnp.asarray(x).times(y)",
        ("graded", "tampered"),
        "not-full",
    ),
    # -- The sandbox's channel is checked after every cell, not only before the hidden tests: a
    # cell that rewrites the events of the cells after it (an error reported as a plain cell),
    # then puts the channel back, is caught in between.
    "rewrite_events_between_cells": (
        "import multiprocessing.connection as mc\n_real = mc._ConnectionBase.send_bytes\n"
        "def _send(self, data, *a, **k):\n"
        "    return _real(self, data.replace(b'cell_error', b'cell'), *a, **k)\n"
        "mc._ConnectionBase.send_bytes = _send"
        + NEXT_CELL
        + "raise ValueError('an error the grader must not see')"
        + NEXT_CELL
        + "mc._ConnectionBase.send_bytes = _real",
        "tampered",
        "zero",
    ),
    # A library function wrapped for a while (counting calls) and put back before the hidden
    # tests: nothing it did can change a value the tests read, so nobody is accused; the gated
    # questions still cannot be read as written (the assignment could replace any function).
    "wrap_a_library_function_then_put_it_back": (
        "_real_mean = jnp.mean\ncalls = []\n"
        "def counting_mean(*args, **kwargs):\n    calls.append(1)\n    return _real_mean(*args, **kwargs)\n"
        "jnp.mean = counting_mean\nstandardize(jnp.arange(6.0).reshape(3, 2))"
        + NEXT_CELL
        + "jnp.mean = _real_mean",
        "graded",
        "not-full",
    ),
}


SEED = 424242  # the batch's seed: an attack that finds it in the sandbox loses q2


@pytest.fixture(scope="module")
def udp_listener() -> Iterator[socket.socket]:
    """Where an escaped datagram would land: a real listener, so the network attack is not vacuous."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.setblocking(False)
    yield s
    s.close()


@pytest.fixture(scope="module")
def host_socket() -> Iterator[str]:
    """A socket file of the host anyone may connect to (mode 0777 in a 0777 folder under /tmp,
    as a tmux or an X server leaves one): no sandbox may reach it, root or not."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="adversarial-", dir="/tmp"))
    os.chmod(folder, 0o777)
    path = folder / "open.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    os.chmod(path, 0o777)
    s.listen(8)
    yield str(path)
    s.close()
    path.unlink(missing_ok=True)
    folder.rmdir()


@pytest.fixture(scope="module")
def graded(
    tmp_path_factory: pytest.TempPathFactory, udp_listener: socket.socket, host_socket: str
) -> tuple[dict[str, dict], Path]:
    from autograder.release import build

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
    port = udp_listener.getsockname()[1]
    for name, (cell, _, _) in ATTACKS.items():
        nb = nbformat.from_dict(json.loads(json.dumps(reference)))
        cell = cell.replace("UDP_PORT", str(port)).replace("== SEED", f"== {SEED}")
        cell = cell.replace("UNIX_SOCKET", repr(host_socket))
        nb.cells += [nbformat.v4.new_code_cell(part) for part in cell.split(NEXT_CELL)]
        nbformat.write(nb, subs / f"{name}.ipynb")
    out = tmp / "out"
    os.environ["AUTOGRADER_TEST_SECRET"] = "hunter2"  # a grader secret no sandbox may see
    warnings = io.StringIO()  # why a batch failed, in the assertion: CI shows no more
    with contextlib.redirect_stderr(warnings):
        status = grade.run(
            GradeOptions(
                assignment=a.id,
                submissions=subs,
                out=out,
                jobs=2,
                quiet=True,
                cell_seconds=5,
                submission_seconds=60,
                memory_mb=1536,
                course=course,
                seed=SEED,
            )
        )
    os.environ.pop("AUTOGRADER_TEST_SECRET")
    assert status == 0, warnings.getvalue()[-3000:]
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
    assert row["status"] in ((status,) if isinstance(status, str) else status), results[name]["output"]
    total = sum(row["questions"].values())
    if score == "not-full":
        assert total < row["possible"]
    elif score == "full":
        assert total == row["possible"], results[name]["output"]
    elif score == "zero":
        assert total == 0
    else:
        lost = score.removesuffix("-lost")
        assert row["questions"][lost] == 0, results[name]["output"]
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


def test_no_datagram_left_the_sandbox(
    graded: tuple[dict[str, dict], Path], udp_listener: socket.socket
) -> None:
    """Checked at the receiving end, not by the attacking cell's own account of it."""
    with pytest.raises(BlockingIOError):
        udp_listener.recvfrom(16)


def test_no_descendant_outlives_its_sandbox(graded: tuple[dict[str, dict], Path]) -> None:
    ps = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout.splitlines()
    assert not [p for p in ps if p.strip() == "sleep 31337"]


def test_nothing_left_in_dev_shm(graded: tuple[dict[str, dict], Path]) -> None:
    assert not Path("/dev/shm/hog").exists()


def test_rows_record_the_batch_seed(graded: tuple[dict[str, dict], Path]) -> None:
    results, out = graded
    assert {r["extra_data"]["seed"] for r in results.values()} == {SEED}
    assert json.loads((out / "batch.json").read_text())["seed"] == SEED


def test_no_row_is_the_graders_fault(graded: tuple[dict[str, dict], Path]) -> None:
    """A sandbox that locked or made immutable its scratch files costs later runs in its slot
    nothing."""
    results, _ = graded
    assert not [n for n, r in results.items() if r["extra_data"]["status"] == "error"]


def test_gradebook_cells_are_never_formulas(tmp_path: Path) -> None:
    record = records.Record(
        '=HYPERLINK("http://x").ipynb', "k", "f", "graded", "+1 -2", {"q1": 1.0}, 2.0, [], [], 1
    )
    records.write_gradebook(tmp_path / "g.csv", [record], ["q1"])
    import csv

    header, row = list(csv.reader((tmp_path / "g.csv").open()))
    assert row[0].startswith("'=") and row[header.index("message")].startswith("'+")


def test_no_feedback_page_carries_the_hidden_tests(graded: tuple[dict[str, dict], Path]) -> None:
    """Whatever a sandbox sends back (an error built from the hidden tests' own lines, found
    through the garbage collector and linecache) is bounded and redacted before a student reads
    it: no distinctive line of probes.py is in any feedback page or results file."""
    _, out = graded
    probes = (ROOT / "solutions" / "01-broadcasting" / "probes.py").read_text().splitlines()
    distinct = [line.strip() for line in probes if len(line.strip()) > 40]
    assert len(distinct) > 50
    for page in [*(out / "feedback").glob("*.html"), *(out / "results").glob("*.json")]:
        text = page.read_text()
        assert not [line for line in distinct if line in text], page.name
