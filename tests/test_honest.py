"""Honest work always earns its points: real students' habits never cost a point or a `tampered`.

Every notebook here is one assignment's correct answers (the reference's graded cells, as
`validate` and the adversarial suite take them) plus the habits real students have, in one class
each: a library's normal side effect, statements that are not the answer beside a gated function,
harmless reads of the namespace, Jupyter syntax, everyday habits (helpers, prints, test cells,
re-run cells), and the forms a notebook is submitted in. Where a habit rewrites an answer, the
rewrite (written here) is correct and keeps the rules its notebook states. Each assignment's
notebooks are graded in one batch by the real grader, beside the reference's cells alone (the
control), and each must keep full marks with status `graded`.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder.config import load_course
from autograder.grading import batch as grade
from autograder.grading.options import GradeOptions
from autograder.notebooks import defined_names
from autograder.release.validate import graded_cells

SEED = 20261123  # the demo's, as test_grade_cli's: 01's reference store of the session serves both

#: The habit classes of the issue, and what each covers.
CLASSES = {
    "side-effect": "1. a library's normal side effect",
    "gate-reading": "2. statements beside a gated function that are not the answer",
    "harmless-read": "3. harmless reads of the namespace and jit wrappers",
    "jupyter": "4. Jupyter syntax: magics, shell and help lines",
    "habit": "5. other habits: imports, helpers, hints, prints, test cells, re-runs",
    "form": "6. how the notebook is submitted (otter's export zip)",
    "submission-step": "6. the submission step: an old format, a large output",
}

Edit = Callable[[nbformat.NotebookNode], None]


# ---------------------------------------------------------------------------------------------
# Edits of a notebook: where a habit goes, relative to the cell that defines a graded function.


def _defining(nb: nbformat.NotebookNode, name: str) -> int:
    found = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and name in defined_names(c.source)]
    assert found, f"no code cell of the reference defines {name}: update this habit"
    return found[-1]


def _first_code(nb: nbformat.NotebookNode) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")


def _code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source.strip("\n"))


def top(source: str) -> Edit:
    """A new cell before the first code cell (the set-up cell)."""
    return lambda nb: nb.cells.insert(_first_code(nb), _code(source))


def after_imports(source: str) -> Edit:
    """A new cell right after the set-up cell."""
    return lambda nb: nb.cells.insert(_first_code(nb) + 1, _code(source))


def after(name: str, source: str) -> Edit:
    """A new cell right after the cell that defines ``name``."""
    return lambda nb: nb.cells.insert(_defining(nb, name) + 1, _code(source))


def before(name: str, source: str) -> Edit:
    """A new cell right before the cell that defines ``name``."""
    return lambda nb: nb.cells.insert(_defining(nb, name), _code(source))


def at_end(source: str) -> Edit:
    """A new cell after every answer."""
    return lambda nb: nb.cells.append(_code(source))


def markdown_after(name: str, text: str) -> Edit:
    return lambda nb: nb.cells.insert(_defining(nb, name) + 1, nbformat.v4.new_markdown_cell(text))


def rewrite(name: str, source: str) -> Edit:
    """The cell that defines ``name``, rewritten by the student (the rewrite is written here:
    correct, and keeping the notebook's rules)."""

    def edit(nb: nbformat.NotebookNode) -> None:
        nb.cells[_defining(nb, name)].source = source.strip("\n")

    return edit


def prefix(name: str, first_lines: str, last_lines: str = "") -> Edit:
    """Lines added at the top (and the bottom) of the cell that defines ``name``."""

    def edit(nb: nbformat.NotebookNode) -> None:
        cell = nb.cells[_defining(nb, name)]
        cell.source = first_lines.strip("\n") + "\n" + cell.source + ("\n" + last_lines.strip("\n"))

    return edit


def run_again(name: str) -> Edit:
    """The cell that defines ``name``, run a second time (a copy right below it)."""

    def edit(nb: nbformat.NotebookNode) -> None:
        i = _defining(nb, name)
        nb.cells.insert(i + 1, _code(nb.cells[i].source))

    return edit


def large_output(name: str, mib: int = 15) -> Edit:
    """A demo cell after ``name``'s whose saved output is ``mib`` MiB of text (an array printed
    whole once, then the cell trimmed; the output stays in the file)."""

    def edit(nb: nbformat.NotebookNode) -> None:
        line = ", ".join(f"{i}.0" for i in range(200)) + "\n"
        text = line * (mib * 2**20 // len(line) + 1)
        cell = _code("big = outer(jnp.arange(1500.0), jnp.arange(1500.0))\nprint(big.shape)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        cell.execution_count = 7
        nb.cells.insert(_defining(nb, name) + 1, cell)

    return edit


# ---------------------------------------------------------------------------------------------
# The honest notebooks.


@dataclass(frozen=True)
class Honest:
    name: str
    assignment: str
    habit: str  # a key of CLASSES
    what: str  # one line: the habit
    edits: tuple[Edit, ...] = ()
    form: str = "ipynb"  # "ipynb", "nbformat3" or "otter-zip"

    @property
    def file(self) -> str:
        return f"{self.name}.zip" if self.form == "otter-zip" else f"{self.name}.ipynb"

    def data(self, lean: nbformat.NotebookNode, notebook: str) -> bytes:
        nb = copy.deepcopy(lean)
        for edit in self.edits:
            edit(nb)
        if self.form == "nbformat3":
            return nbformat.writes(nbformat.convert(nb, 3), version=3).encode()
        text = nbformat.writes(nb).encode()
        if self.form == "otter-zip":  # what otter's `grader.export()` writes
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                zf.writestr(notebook, text)
                zf.writestr(".OTTER_LOG", b"\x80\x04]\x94.")  # otter's pickled log (never read)
                stem = notebook.removesuffix(".ipynb")
                zf.writestr("__zip_filename__", f"{stem}_2027_01_20T10_00_00_000000.zip")
            return buf.getvalue()
        return text


B, P, A, J, T, N = "01-broadcasting", "02-prng", "03-autodiff", "04-jit", "05-pmap", "06-training"

HONEST = [
    # -- 01-broadcasting: every question has a source gate (plain Python, no loop, no library).
    Honest(
        "01-pandas",
        B,
        "side-effect",
        "`import pandas` and a display option, after the set-up cell",
        (after_imports('import pandas as pd\n\npd.set_option("display.precision", 3)'),),
    ),
    Honest(
        "01-warnings-filter",
        B,
        "side-effect",
        '`warnings.filterwarnings("ignore")` after the set-up cell',
        (after_imports('import warnings\n\nwarnings.filterwarnings("ignore")'),),
    ),
    Honest(
        "01-test-loop-over-inputs",
        B,
        "gate-reading",
        "a test cell `for x in [...]: print(outer(x, x))` below `outer`",
        (after("outer", "for x in [jnp.arange(3.0), jnp.array([1.0, -2.0])]:\n    print(outer(x, x))"),),
    ),
    Honest(
        "01-check-against-np-broadcast-shapes",
        B,
        "gate-reading",
        "a test loop comparing `broadcast_shape` with `np.broadcast_shapes` (binds `shapes`, `result`)",
        (
            after(
                "broadcast_shape",
                """
# Check against NumPy's own rule (fine here: this cell is not the answer).
for shapes in [[(3, 1), (1, 4)], [(2, 3), ()], [(0,), (1,)], [(5, 1, 2), (4, 1)]]:
    result = np.broadcast_shapes(*shapes)
    assert broadcast_shape(*shapes) == result, (shapes, result)
print("broadcast_shape agrees with np.broadcast_shapes")
""",
            ),
        ),
    ),
    Honest(
        "01-check-with-a-generator",
        B,
        "gate-reading",
        "a check cell comparing `pairwise_sq_dists` with a generator over `i`, `j` (binds `diff`)",
        (
            after(
                "pairwise_sq_dists",
                """
X = jnp.array([[0.0, 1.0], [2.0, 2.0], [1.0, -1.0]])
Y = jnp.array([[1.0, 1.0], [0.0, 0.0]])
D = pairwise_sq_dists(X, Y)
diff = max(
    abs(float(D[i, j]) - float(jnp.sum((X[i] - Y[j]) ** 2)))
    for i in range(X.shape[0])
    for j in range(Y.shape[0])
)
print("largest difference from a plain loop:", diff)
""",
            ),
        ),
    ),
    Honest(
        "01-own-log-softmax-helper",
        B,
        "gate-reading",
        "`softmax` as `jnp.exp` of the student's own helper `def log_softmax(...)`",
        (
            rewrite(
                "softmax",
                '''
def log_softmax(x, axis=-1):
    """My own stable log-softmax: the shifted scores minus the log of their exp-sum."""
    shifted = x - jnp.max(x, axis=axis, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    """Numerically stable softmax along `axis`, through my log_softmax."""
    return jnp.exp(log_softmax(x, axis=axis))
''',
            ),
        ),
    ),
    Honest(
        "01-chained-assignment",
        B,
        "gate-reading",
        "`i = j = jnp.arange(k)` inside `set_diagonal`",
        (
            rewrite(
                "set_diagonal",
                '''
def set_diagonal(M, v):
    """A copy of M with its first min(M.shape) diagonal entries set to v, through .at[...]."""
    k = min(M.shape)
    i = j = jnp.arange(k)
    return M.at[i, j].set(v)
''',
            ),
        ),
    ),
    Honest(
        "01-colab-check",
        B,
        "harmless-read",
        '`IN_COLAB = "google.colab" in sys.modules` before the set-up cell',
        (
            top(
                'import sys\n\nIN_COLAB = "google.colab" in sys.modules\n'
                'print("running on Colab" if IN_COLAB else "running locally")'
            ),
        ),
    ),
    Honest(
        "01-line-magics",
        B,
        "jupyter",
        "`%matplotlib inline`, `%load_ext autoreload`, `%autoreload 2`, `%timeit` and `!pip list`",
        (
            top("%matplotlib inline\n%load_ext autoreload\n%autoreload 2"),
            after(
                "outer",
                "x, y = jnp.arange(1000.0), jnp.arange(500.0)\n%timeit outer(x, y).block_until_ready()",
            ),
            at_end("!pip list | grep -i jax"),
        ),
    ),
    Honest(
        "01-help-and-timeit-o",
        B,
        "jupyter",
        "a help line `jnp.exp?` and `result = %timeit -o ...` in demo cells",
        (
            after("softmax", "jnp.exp?"),
            after(
                "outer",
                "x, y = jnp.arange(1000.0), jnp.arange(500.0)\n"
                "result = %timeit -o outer(x, y).block_until_ready()\nprint(result.best)",
            ),
        ),
    ),
    Honest(
        "01-percent-continuation",
        B,
        "jupyter",
        "`add_positional` raises with a message whose `% (...)` line continues inside brackets",
        (
            rewrite(
                "add_positional",
                '''
def add_positional(tokens, positions):
    """tokens (batch, time, dim) + positions (time, dim), broadcast over the batch axis."""
    if positions.shape != tokens.shape[1:]:
        raise ValueError(
            "positions %s do not match tokens %s"
            % (positions.shape, tokens.shape)
        )
    return tokens + positions[None, :, :]
''',
            ),
        ),
    ),
    Honest(
        "01-helper-hints-print",
        B,
        "habit",
        "`import math, itertools, functools`; `standardize` with a helper, type hints, a docstring "
        "and a print",
        (
            after_imports("import math, itertools, functools"),
            rewrite(
                "standardize",
                '''
def _moments(X: jnp.ndarray, axis: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Mean and standard deviation (ddof=0) along `axis`, kept as a size-1 axis."""
    return jnp.mean(X, axis=axis, keepdims=True), jnp.std(X, axis=axis, keepdims=True)


def standardize(X: jnp.ndarray, axis: int = 0, eps: float = 1e-8) -> jnp.ndarray:
    """Zero mean and unit standard deviation along `axis`."""
    mean, std = _moments(X, axis)
    print("standardize: shape", X.shape, "along axis", axis)
    return (X - mean) / (std + eps)
''',
            ),
        ),
    ),
    Honest(
        "01-tests-rerun-raise",
        B,
        "habit",
        "an `assert` cell, a markdown note, `one_hot`'s cell run twice, and a last cell that raises",
        (
            after(
                "standardize",
                "Z = standardize(jnp.arange(12.0).reshape(3, 4))\n"
                "assert jnp.allclose(Z.mean(axis=0), 0.0, atol=1e-6)\n"
                "assert jnp.allclose(Z.std(axis=0), 1.0, atol=1e-5)",
            ),
            markdown_after("outer", "Note to self: `x[:, None]` makes a column, `y[None, :]` a row."),
            run_again("one_hot"),
            at_end(
                "# The shape error the question asks for:\n"
                "add_positional(jnp.zeros((2, 3, 4)), jnp.zeros((5, 4)))"
            ),
        ),
    ),
    Honest(
        "01-otter-export-zip",
        B,
        "form",
        "the notebook in a zip as otter's `grader.export()` writes it (`.OTTER_LOG` included)",
        form="otter-zip",
    ),
    Honest(
        "01-nbformat-3",
        B,
        "submission-step",
        "the notebook saved in nbformat 3 (an old Jupyter)",
        form="nbformat3",
    ),
    Honest(
        "01-large-output",
        B,
        "submission-step",
        "a demo cell whose saved output is 15 MiB of printed array (under the 20 MiB cap)",
        (large_output("outer"),),
    ),
    # -- 02-prng: q6 has a source gate (no loop); q8 and q9 look at the traced program.
    Honest(
        "01-take-or-fill-by-where",
        B,
        "habit",
        '`take_or_fill` written with a mask and `jnp.where` instead of `.at[...].get(mode="fill")`',
        (
            rewrite(
                "take_or_fill",
                '''
def take_or_fill(x, idx, fill):
    """x[idx] where -n <= idx < n, fill elsewhere: my version with a mask."""
    n = x.shape[0]
    inside = (idx >= -n) & (idx < n)
    safe = jnp.where(inside, idx, 0)  # any in-range index, so the gather never clamps
    return jnp.where(inside, x[safe], jnp.float32(fill))
''',
            ),
        ),
    ),
    Honest(
        "01-brighten-in-int32",
        B,
        "habit",
        "`brighten` computed in int32 with `jnp.clip`, then back to uint8",
        (
            rewrite(
                "brighten",
                '''
def brighten(img, delta):
    """img + delta, saturated to [0, 255], without uint8 wrap-around."""
    return jnp.clip(img.astype(jnp.int32) + delta, 0, 255).astype(jnp.uint8)
''',
            ),
        ),
    ),
    Honest(
        "01-optional-wandb-import",
        B,
        "habit",
        "`try: import wandb / except ImportError: wandb = None` above the set-up cell; answers call "
        "builtins (`max`, `len`, `min`, `ValueError`)",
        (
            top(
                """
try:
    import wandb
except ImportError:
    wandb = None
"""
            ),
            at_end(
                'if wandb is not None:\n    wandb.log({"softmax_sum": float(softmax(jnp.arange(4.0)).sum())})'
            ),
        ),
    ),
    Honest(
        "01-dataclass-settings",
        B,
        "habit",
        "a frozen dataclass of settings, `CFG = Config()`, read by `standardize`'s default",
        (
            after_imports(
                """
import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    eps: float = 1e-8
    axis: int = -1


CFG = Config()
"""
            ),
            rewrite(
                "standardize",
                """
def standardize(X, axis=0, eps=CFG.eps):
    mean = X.mean(axis=axis, keepdims=True)
    return (X - mean) / (X.std(axis=axis, keepdims=True) + eps)
""",
            ),
        ),
    ),
    Honest(
        "01-broadcast-by-zip-longest",
        B,
        "habit",
        "`broadcast_shape` in the student's own algorithm: right to left with itertools.zip_longest",
        (
            rewrite(
                "broadcast_shape",
                """
from itertools import zip_longest


def broadcast_shape(*shapes):
    out = []
    for dims in zip_longest(*[reversed(s) for s in shapes], fillvalue=1):
        size = 1
        for d in dims:
            if d == 1:
                continue
            if size == 1:
                size = d
            elif d != size:
                raise ValueError(f"can't broadcast {shapes}")
        out.append(size)
    return tuple(reversed(out))
""",
            ),
        ),
    ),
    Honest(
        "02-matplotlib-style",
        P,
        "side-effect",
        '`plt.style.use("ggplot")` and an rcParams change after the set-up cell',
        (after_imports('plt.style.use("ggplot")\nplt.rcParams["figure.dpi"] = 100'),),
    ),
    Honest(
        "02-key-if-missing",
        P,
        "harmless-read",
        '`if "key" not in globals(): key = jax.random.key(0)` after the set-up cell',
        (after_imports('if "key" not in globals():\n    key = jax.random.key(0)\nprint(key)'),),
    ),
    Honest(
        "02-convergence-loop",
        P,
        "gate-reading",
        "a demo loop `for n in [...]: print(n, estimate_pi(key, n))` (binds `n`, a parameter of "
        "`estimate_pi`)",
        (
            after(
                "estimate_pi",
                "key = jax.random.key(0)\n"
                "for n in [100, 10_000, 1_000_000]:\n    print(n, estimate_pi(key, n))",
            ),
        ),
    ),
    Honest(
        "02-jit-wrapped",
        P,
        "harmless-read",
        '`estimate_pi = jax.jit(estimate_pi, static_argnames="n")` after its `def`',
        (
            after(
                "estimate_pi",
                'estimate_pi = jax.jit(estimate_pi, static_argnames="n")\n'
                "print(estimate_pi(jax.random.key(0), 10_000))",
            ),
        ),
    ),
    Honest(
        "02-time-magic-cell",
        P,
        "jupyter",
        "`%%time` on the cell that defines `init_mlp` (and calls it)",
        (
            prefix(
                "init_mlp",
                "%%time",
                'params = init_mlp(jax.random.key(0), [784, 512, 10])\nprint([p["W"].shape for p in params])',
            ),
        ),
    ),
    Honest(
        "02-helper-hints-print",
        P,
        "habit",
        "`dropout` with a helper and type hints; `split_keys` with a print",
        (
            rewrite(
                "dropout",
                '''
def _keep_mask(key: jax.Array, keep_prob: float, shape: tuple[int, ...]) -> jax.Array:
    """A Bernoulli(keep_prob) mask of `shape`, drawn from `key` alone."""
    return jax.random.bernoulli(key, keep_prob, shape)


def dropout(key: jax.Array, x: jax.Array, rate: float, deterministic: bool = False) -> jax.Array:
    """Inverted dropout: keep each entry with probability 1 - rate and rescale it."""
    if deterministic or rate == 0:
        return x
    if rate == 1:
        return jnp.zeros_like(x)
    keep = _keep_mask(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)
''',
            ),
            rewrite(
                "split_keys",
                '''
def split_keys(key, n):
    """new_key, subkeys from one split of key into n + 1 keys."""
    all_keys = jax.random.split(key, n + 1)
    print(f"split_keys: {n} subkeys of shape {all_keys[1:].shape}")
    return all_keys[0], all_keys[1:]
''',
            ),
        ),
    ),
    Honest(
        "02-tests-rerun-raise",
        P,
        "habit",
        "an `assert` cell, a markdown note, `shuffle_batches`'s cell run twice, a last cell that raises",
        (
            after(
                "lcg",
                "state, xs = lcg(42, 5)\nassert xs.dtype == np.uint32 and xs.shape == (5,)\n"
                "assert lcg(state, 3)[1][0] == lcg(42, 6)[1][5]",
            ),
            markdown_after("split_keys", "Remember: **never** use a key twice."),
            run_again("shuffle_batches"),
            at_end("# The pitfall: an int is not a key.\njax.random.normal(42, (3,))"),
        ),
    ),
    # -- 03-autodiff: q1-q5 and q8 have source gates (no Jacobian builder; no autodiff in q8).
    Honest(
        "02-estimate-pi-jit-partial",
        P,
        "harmless-read",
        "`estimate_pi` under `@functools.partial(jax.jit, static_argnums=1)`, by count_nonzero",
        (
            rewrite(
                "estimate_pi",
                """
import functools


@functools.partial(jax.jit, static_argnums=1)
def estimate_pi(key, n):
    pts = jax.random.uniform(key, (n, 2))
    r2 = pts[:, 0] ** 2 + pts[:, 1] ** 2
    return (4.0 * jnp.count_nonzero(r2 <= 1.0) / n).astype(jnp.float32)
""",
            ),
        ),
    ),
    Honest(
        "03-printoptions",
        A,
        "side-effect",
        "`np.set_printoptions(precision=3, suppress=True)` after the set-up cell",
        (after_imports("np.set_printoptions(precision=3, suppress=True)"),),
    ),
    Honest(
        "03-local-J-and-jacfwd-check",
        A,
        "gate-reading",
        "`jacobian_fwd`/`jacobian_rev` with a local `J`; a check cell binds `J = jax.jacfwd(f)(x)`",
        (
            rewrite(
                "jacobian_fwd",
                '''
def jacobian_fwd(f, x):
    """J (m, n): column j is the jvp of f along e_j, every column at once with vmap."""
    basis = jnp.eye(x.size, dtype=x.dtype)
    J = jax.vmap(lambda e: jax.jvp(f, (x,), (e,))[1], out_axes=1)(basis)
    return J
''',
            ),
            rewrite(
                "jacobian_rev",
                '''
def jacobian_rev(f, x):
    """J (m, n): row i is the vjp of f with e_i, every row at once with vmap."""
    y, pullback = jax.vjp(f, x)
    (J,) = jax.vmap(pullback)(jnp.eye(y.size, dtype=y.dtype))
    return J
''',
            ),
            after(
                "jacobian_rev",
                """
f = lambda x: jnp.array([x[0] * x[1], jnp.sin(x[2]), jnp.sum(x**2)])
x = jnp.array([0.5, -1.0, 2.0])
J = jax.jacfwd(f)(x)  # the library's Jacobian, to check mine
print(jnp.allclose(jacobian_fwd(f, x), J), jnp.allclose(jacobian_rev(f, x), J))
""",
            ),
        ),
    ),
    Honest(
        "03-vjp-check-loop",
        A,
        "gate-reading",
        "a test loop checking `mlp_vjp` against `jax.vjp` (binds `x`, `cotangent`)",
        (
            after(
                "mlp_vjp",
                """
def forward(params, x):
    hidden = jnp.tanh(x @ params[0]["W"] + params[0]["b"])
    return hidden @ params[1]["W"] + params[1]["b"]


k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
params = [
    {"W": jax.random.normal(k1, (3, 4)), "b": jnp.zeros(4)},
    {"W": jax.random.normal(k2, (4, 2)), "b": jnp.zeros(2)},
]
for seed in range(3):
    kx, kc = jax.random.split(jax.random.fold_in(k3, seed))
    x, cotangent = jax.random.normal(kx, (3,)), jax.random.normal(kc, (2,))
    _, pullback = jax.vjp(lambda x: forward(params, x), x)
    assert jnp.allclose(mlp_vjp(params, x, cotangent), pullback(cotangent)[0], atol=1e-5)
print("mlp_vjp agrees with jax.vjp")
""",
            ),
        ),
    ),
    Honest(
        "03-local-grad",
        A,
        "gate-reading",
        "`from jax import grad, vmap` for the demos; `mlp_vjp` keeps its gradient in a local `grad`",
        (
            after_imports("from jax import grad, vmap\n\nprint(grad(jnp.tanh)(0.0))"),
            rewrite(
                "mlp_vjp",
                '''
def mlp_vjp(params, x, cotangent):
    """cotangent @ J(x) for y = tanh(x @ W1 + b1) @ W2 + b2, by hand."""
    W1, b1, W2 = params[0]["W"], params[0]["b"], params[1]["W"]
    hidden = jnp.tanh(x @ W1 + b1)
    grad = W2 @ cotangent  # the cotangent of the hidden activations
    grad = grad * (1 - hidden**2)  # back through tanh
    return W1 @ grad  # back through + b1 and @ W1
''',
            ),
        ),
    ),
    Honest(
        "03-hints-print-hessian-check",
        A,
        "habit",
        "`directional_derivative` with hints and a print; `hvp` through a helper; a check with `jax.hessian`",
        (
            rewrite(
                "directional_derivative",
                '''
def directional_derivative(f: "Callable[[jax.Array], jax.Array]", x: jax.Array, v: jax.Array) -> jax.Array:
    """J(x) @ v from one forward-mode pass, never the whole Jacobian."""
    y, tangent_out = jax.jvp(f, (x,), (v,))
    print(f"directional_derivative: f(x) has shape {y.shape}")
    return tangent_out
''',
            ),
            rewrite(
                "hvp",
                '''
def _gradient_of(f):
    """The gradient function of a scalar f."""
    return jax.grad(f)


def hvp(f, x, v):
    """H(x) @ v: forward mode over reverse mode, no Hessian."""
    return jax.jvp(_gradient_of(f), (x,), (v,))[1]
''',
            ),
            after(
                "hvp",
                """
f = lambda x: jnp.sum(jnp.sin(x) * x**2)
x, v = jnp.arange(3.0), jnp.ones(3)
H = jax.hessian(f)(x)  # small enough to build here, to check hvp
assert jnp.allclose(hvp(f, x, v), H @ v, atol=1e-5)
""",
            ),
        ),
    ),
    Honest(
        "03-tests-rerun-raise",
        A,
        "habit",
        "a markdown note, `straight_through_round`'s cell run twice, a last cell that raises",
        (
            markdown_after(
                "straight_through_round", "The forward pass rounds; the backward pass is the identity."
            ),
            run_again("straight_through_round"),
            at_end("# The pitfall: grad needs a scalar output.\njax.grad(lambda x: x**2)(jnp.ones(3))"),
        ),
    ),
    Honest(
        "03-nbformat-3",
        A,
        "submission-step",
        "the notebook saved in nbformat 3 (an old Jupyter)",
        form="nbformat3",
    ),
    # -- 04-jit: q2 and q3 have source gates; q6, q7 and q10 look at the traced program.
    Honest(
        "03-clip-gradient-static-bounds-and-lax-map",
        A,
        "habit",
        "q9 the other right way (`nondiff_argnums=(1, 2)`, static bounds) and q11 with `lax.map`",
        (
            rewrite(
                "clip_gradient",
                '''
@partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def clip_gradient(x, lo, hi):
    """x on the way forward; the cotangent of x clipped to [lo, hi] on the way back."""
    return x


def clip_gradient_fwd(x, lo, hi):
    return x, None


def clip_gradient_bwd(lo, hi, residuals, g):
    return (jnp.clip(g, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
''',
            ),
            rewrite(
                "per_example_grads",
                '''
def per_example_grads(loss, params, xs, ys):
    """One gradient per example, with lax.map over the batch (the program does not grow)."""
    return jax.lax.map(lambda xy: jax.grad(loss)(params, xy[0], xy[1]), (xs, ys))
''',
            ),
        ),
    ),
    Honest(
        "03-clipped-mean-grad-from-q11",
        A,
        "habit",
        "q12 built on the student's own q11 `per_example_grads`, clipping with `jnp.where`",
        (
            rewrite(
                "clipped_mean_grad",
                '''
def clipped_mean_grad(loss, params, xs, ys, max_norm):
    """q11's per-example gradients, each clipped to global norm max_norm, then averaged."""
    grads = per_example_grads(loss, params, xs, ys)
    leaves = jax.tree.leaves(grads)
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in leaves))
    scale = jnp.where(norms > max_norm, max_norm / jnp.where(norms > 0, norms, 1.0), 1.0)
    return jax.tree.map(lambda g: jnp.tensordot(scale, g, axes=1) / g.shape[0], grads)
''',
            ),
        ),
    ),
    Honest(
        "03-bare-jvp-vjp-vmap",
        A,
        "habit",
        "`from jax import jvp, vjp, vmap` in a cell of its own, the bare names in questions 1-3",
        (
            after_imports("from jax import jvp, vjp, vmap"),
            rewrite(
                "directional_derivative",
                """
def directional_derivative(f, x, v):
    y, jv = jvp(f, (x,), (v,))
    return jv
""",
            ),
            rewrite(
                "jacobian_fwd",
                """
def jacobian_fwd(f, x):
    push = lambda t: jvp(f, (x,), (t,))[1]  # noqa: E731
    return vmap(push, out_axes=1)(jnp.eye(x.shape[0], dtype=x.dtype))
""",
            ),
            rewrite(
                "jacobian_rev",
                """
def jacobian_rev(f, x):
    y, pull = vjp(f, x)
    return vmap(lambda u: pull(u)[0])(jnp.eye(y.shape[0], dtype=y.dtype))
""",
            ),
        ),
    ),
    Honest(
        "04-precision-other-ways",
        J,
        "habit",
        "q14 with `jax.config.update` on and off again in `try`/`finally`; q15 jitted, under a "
        '`jax.default_matmul_precision("float32")` block',
        (
            rewrite(
                "solve_in_float64",
                '''
def solve_in_float64(A, b):
    """Solve in float64: 64-bit mode on for the call, and off again whatever happens."""
    jax.config.update("jax_enable_x64", True)
    try:
        return jnp.linalg.solve(jnp.array(A, dtype=jnp.float64), jnp.array(b, dtype=jnp.float64))
    finally:
        jax.config.update("jax_enable_x64", False)
''',
            ),
            rewrite(
                "predict_full_precision",
                '''
@jax.jit
def predict_full_precision(params, x):
    """Every product at full float32 precision: the block is read while tracing."""
    with jax.default_matmul_precision("float32"):
        *hidden, last = params
        for layer in hidden:
            x = jnp.tanh(jnp.einsum("ni,io->no", x, layer["W"]) + layer["b"])
        return x @ last["W"] + last["b"]
''',
            ),
        ),
    ),
    Honest(
        "04-x64-off",
        J,
        "side-effect",
        '`jax.config.update("jax_enable_x64", False)` after the set-up cell',
        (after_imports('jax.config.update("jax_enable_x64", False)  # float32, as the course grades'),),
    ),
    Honest(
        "04-mask-check-loop",
        J,
        "gate-reading",
        "a test loop comparing `sum_negatives(x)` with `jnp.sum(x[x < 0])` (binds `x`)",
        (
            after(
                "sum_negatives",
                """
for x in [jnp.array([-1.0, 2.0, -3.0]), jnp.array([jnp.inf, -jnp.inf, 0.5]), jnp.zeros(0)]:
    assert sum_negatives(x) == jnp.sum(x[x < 0]), x  # boolean indexing is fine here, outside jit
print("sum_negatives agrees with boolean indexing")
""",
            ),
        ),
    ),
    Honest(
        "04-local-mask-and-size",
        J,
        "gate-reading",
        "locals `mask` and `size` in `sum_negatives` and `flatten`; pitfall demos above them bind "
        "`mask` for `x[mask]` and `size = jnp.prod(...)`",
        (
            before(
                "sum_negatives",
                "x = jnp.array([-1.0, 2.0, -3.0])\nmask = x < 0\nprint(x[mask].sum())  # fine outside jit",
            ),
            rewrite(
                "sum_negatives",
                '''
def sum_negatives(x):
    """Sum of the entries of `x` that are < 0, keeping the shape with jnp.where."""
    mask = x < 0
    return jnp.sum(jnp.where(mask, x, 0))
''',
            ),
            before(
                "flatten",
                "x = jnp.ones((2, 3))\n"
                "size = jnp.prod(jnp.array(x.shape))  # the pitfall: a traced size under jit\n"
                "print(size)",
            ),
            rewrite(
                "flatten",
                '''
def flatten(x):
    """The entries of `x` as a 1-D array, in row-major order."""
    size = math.prod(x.shape)  # a Python int: static under jit
    return jnp.reshape(x, (size,))
''',
            ),
        ),
    ),
    Honest(
        "04-jit-reassigned",
        J,
        "harmless-read",
        "`sum_negatives = jax.jit(sum_negatives)` and `flatten = jax.jit(flatten)` after their `def`s",
        (
            after(
                "sum_negatives",
                "sum_negatives = jax.jit(sum_negatives)\nprint(sum_negatives(jnp.array([-1.0, 2.0])))",
            ),
            after("flatten", "flatten = jax.jit(flatten)\nprint(flatten(jnp.ones((2, 3))).shape)"),
        ),
    ),
    Honest(
        "04-jit-decorators",
        J,
        "harmless-read",
        "`activation` under `@functools.partial(jax.jit, static_argnames=...)`; `@jax.jit` on a "
        "helper of `newton_sqrt`",
        (
            rewrite(
                "activation",
                '''
@functools.partial(jax.jit, static_argnames="kind")
def activation(x, kind):
    """The activation `kind` applied to `x` elementwise; `kind` is static."""
    if kind == "relu":
        return jnp.maximum(x, 0)
    if kind == "tanh":
        return jnp.tanh(x)
    if kind == "identity":
        return x
    raise ValueError(f"unknown kind {kind!r}")
''',
            ),
            rewrite(
                "newton_sqrt",
                '''
@jax.jit
def _newton_step(x, a):
    """One Newton step for sqrt(a)."""
    return (x + a / x) / 2


def newton_sqrt(a, iters):
    """sqrt(a) by `iters` Newton steps from x0 = a, in a lax.fori_loop."""
    return lax.fori_loop(0, iters, lambda i, x: _newton_step(x, a), a)
''',
            ),
        ),
    ),
    Honest(
        "04-vars-of-a-dataclass",
        J,
        "harmless-read",
        "`print(vars(Affine(...)))` after the pytree question",
        (
            after(
                "Affine",
                "p = Affine(w=jnp.ones((2, 1)), b=jnp.zeros(1))\nprint(vars(p))\nprint(jax.tree.leaves(p))",
            ),
        ),
    ),
    Honest(
        "04-timing-magics",
        J,
        "jupyter",
        "`%timeit` below `scaled_sum` and a `%%time` cell that runs `benchmark`",
        (
            after("scaled_sum", "x = jnp.ones(1_000_000)\n%timeit scaled_sum(x, 2.0).block_until_ready()"),
            after("benchmark", "%%time\nprint(benchmark(scaled_sum, jnp.ones(1000), 3.0))"),
        ),
    ),
    Honest(
        "04-helper-hints-tests-raise",
        J,
        "habit",
        "`lr_schedule` with a helper and type hints, an `assert` cell, a note, a last cell that raises",
        (
            rewrite(
                "lr_schedule",
                '''
def _cosine_decay(progress):
    """0.5 * (1 + cos(pi * progress)): 1 at progress 0, 0 at progress 1."""
    return 0.5 * (1 + jnp.cos(jnp.pi * progress))


def lr_schedule(step: jax.Array, base_lr: float, warmup: int, total: int) -> jax.Array:
    """Linear warm-up to base_lr, cosine decay to 0 at `total`, then 0."""
    step = jnp.asarray(step)
    warm = base_lr * (step + 1) / warmup
    cosine = base_lr * _cosine_decay((step - warmup) / (total - warmup))
    return jnp.where(step < warmup, warm, jnp.where(step < total, cosine, 0.0)).astype(jnp.float32)
''',
            ),
            after("lr_schedule", "assert lr_schedule(jnp.int32(1000), 0.1, 10, 100) == 0.0"),
            markdown_after("lr_schedule", "`jnp.where`, not `if`: `step` is traced."),
            at_end("# The pitfall: a boolean mask under jit.\njax.jit(lambda x: x[x > 0])(jnp.arange(3.0))"),
        ),
    ),
    # -- 05-pmap: no source gate; the data-parallel questions run on 8 virtual devices.
    Honest(
        "04-sqrt-by-fori-with-static-bounds",
        J,
        "habit",
        "`sqrt_by_scan` as a `lax.fori_loop` with Python-int bounds (a scan once traced)",
        (
            rewrite(
                "sqrt_by_scan",
                '''
def sqrt_by_scan(a, iters):
    """Newton's iteration for sqrt(a), differentiable: fori_loop with static bounds."""
    a = jnp.asarray(a, jnp.float32)
    return lax.fori_loop(0, iters, lambda i, x: (x + a / x) / 2, a)
''',
            ),
        ),
    ),
    Honest(
        "04-namedtuple-loop-state",
        J,
        "habit",
        "`minimize` whose `lax.while_loop` state is a NamedTuple class of the student's",
        (
            rewrite(
                "minimize",
                """
from typing import NamedTuple


class GDState(NamedTuple):
    x: jax.Array
    g: jax.Array
    n: jax.Array


def minimize(grad_fn, x0, lr, tol, max_iter):
    x0 = jnp.asarray(x0)

    def keep_going(s: GDState):
        return jnp.logical_and(jnp.linalg.norm(s.g) >= tol, s.n < max_iter)

    def update(s: GDState) -> GDState:
        x = s.x - lr * s.g
        return GDState(x, grad_fn(x), s.n + 1)

    final = lax.while_loop(keep_going, update, GDState(x0, grad_fn(x0), jnp.int32(0)))
    return final.x, final.n
""",
            ),
        ),
    ),
    Honest(
        "05-printoptions-and-style",
        T,
        "side-effect",
        '`np.set_printoptions(precision=4)` and `plt.style.use("seaborn-v0_8-whitegrid")`',
        (after_imports('np.set_printoptions(precision=4)\nplt.style.use("seaborn-v0_8-whitegrid")'),),
    ),
    Honest(
        "05-test-loop",
        T,
        "gate-reading",
        "a test loop `for n in [1, 2, 4]: print(shard(...).shape)` (binds `n`, a local of `shard`)",
        (after("shard", "for n in [1, 2, 4]:\n    print(n, shard(jnp.arange(8.0).reshape(8, 1), n).shape)"),),
    ),
    Honest(
        "05-percent-continuation",
        T,
        "jupyter",
        "`shard` raises with a message whose `% (...)` line continues inside brackets",
        (
            rewrite(
                "shard",
                '''
def shard(x, n_devices):
    """Split the leading axis of x into n_devices contiguous blocks."""
    n = x.shape[0]
    if n % n_devices:
        raise ValueError(
            "cannot split %d examples evenly over %d devices"
            % (n, n_devices)
        )
    return x.reshape(n_devices, n // n_devices, *x.shape[1:])
''',
            ),
        ),
    ),
    Honest(
        "05-timing-magics",
        T,
        "jupyter",
        "a `%%time` cell that trains and a `%timeit` of one pmapped step",
        (
            after("train", "%%time\nparams, losses = train(key, x, y, 50, 0.1)\nprint(params)"),
            after(  # inserted above the %%time cell
                "train",
                """
key = jax.random.key(0)
x = jnp.linspace(-1, 1, 128, dtype=jnp.float32).reshape(-1, 1)
y = 2 * x - 1
n = jax.local_device_count()
p0 = replicate({"w": jnp.float32(0.0), "b": jnp.float32(0.0)}, n)
%timeit train_step(p0, shard(x, n), shard(y, n), 0.1)[1].block_until_ready()
""",
            ),
        ),
    ),
    Honest(
        "05-helper-tests-rerun",
        T,
        "habit",
        "`clipped_train_step` through a helper `global_norm`, an `assert` cell on replicas, a note, "
        "`plot_losses` run twice",
        (
            rewrite(
                "clipped_train_step",
                '''
def global_norm(tree):
    """The L2 norm of all the leaves of `tree` together."""
    return jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(tree)))


@jax.jit
def clipped_on_the_mesh(params, x, y, lr, max_norm):
    """The clipped step on inputs already placed on batch_mesh."""

    def per_device(params, x, y):
        full_batch_loss = lambda p: lax.pmean(mse_loss(p, x, y), axis_name="batch")
        loss, grads = jax.value_and_grad(full_batch_loss)(params)
        factor = jnp.minimum(1.0, max_norm / global_norm(grads))
        return jax.tree.map(lambda p, g: p - lr * (factor * g), params, grads), loss

    specs = (P(), P("batch"), P("batch"))
    return jax.shard_map(per_device, mesh=batch_mesh, in_specs=specs, out_specs=P())(params, x, y)


def clipped_train_step(params, x, y, lr, max_norm):
    """One shard_map step with the full-batch gradient clipped to global norm max_norm."""
    params = jax.device_put(params, NamedSharding(batch_mesh, P()))
    x, y = jax.device_put((x, y), NamedSharding(batch_mesh, P("batch")))
    return clipped_on_the_mesh(params, x, y, lr, max_norm)
''',
            ),
            after(
                "train_step",
                """
n = jax.local_device_count()
params = replicate({"w": jnp.float32(0.0), "b": jnp.float32(0.0)}, n)
xs = jnp.linspace(-1, 1, 8 * n, dtype=jnp.float32).reshape(-1, 1)
new, loss = train_step(params, shard(xs, n), shard(2 * xs - 1, n), 0.1)
assert all(bool(jnp.all(leaf == leaf[0])) for leaf in jax.tree.leaves(new))
""",
            ),
            markdown_after("train_step", "Every replica must end identical: `pmean` before the update."),
            run_again("plot_losses"),
        ),
    ),
    Honest(
        "05-nbformat-3",
        T,
        "submission-step",
        "the notebook saved in nbformat 3 (an old Jupyter)",
        form="nbformat3",
    ),
    # -- 06-training: q4 has a source gate (no optimiser library); q7 runs on 8 devices.
    Honest(
        "05-shard-map-lr-as-an-input",
        T,
        "habit",
        "`shard_map_train_step` with `lr` a fourth `P()` input and the mesh built once at the top",
        (
            rewrite(
                "shard_map_train_step",
                '''
MESH = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Auto,))


def _local_step(params, x, y, lr):
    def full_batch_loss(p):
        return lax.pmean(mse_loss(p, x, y), axis_name="batch")

    loss, grads = jax.value_and_grad(full_batch_loss)(params)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


@jax.jit
def shard_map_train_step(params, x, y, lr):
    """One data-parallel SGD step, per device with jax.shard_map (lr a replicated input)."""
    step = jax.shard_map(
        _local_step, mesh=MESH, in_specs=(P(), P("batch"), P("batch"), P()), out_specs=P()
    )
    return step(params, x, y, lr)
''',
            ),
        ),
    ),
    Honest(
        "06-library-side-effects",
        N,
        "side-effect",
        "print options, a matplotlib style and `jax_enable_x64` off, all in one cell",
        (
            after_imports(
                'np.set_printoptions(precision=3)\nplt.style.use("ggplot")\n'
                'jax.config.update("jax_enable_x64", False)'
            ),
        ),
    ),
    Honest(
        "06-adam-test-loop",
        N,
        "gate-reading",
        "a test loop of `adam_update` steps binding `t`, `grads`, `params`, `state` (its locals)",
        (
            after(
                "adam_update",
                """
params = init_params(jax.random.key(0), SIZES)
state = adam_init(params)
for t in range(3):
    grads = jax.tree.map(jnp.ones_like, params)
    params, state = adam_update(grads, state, params, 1e-2)
print(state["t"])
""",
            ),
        ),
    ),
    Honest(
        "06-jit-wrapped",
        N,
        "harmless-read",
        "`adam_update = jax.jit(adam_update)` after its `def`",
        (after("adam_update", "adam_update = jax.jit(adam_update)"),),
    ),
    Honest(
        "06-time-the-fit",
        N,
        "jupyter",
        "a `%%time` cell that runs `fit`, and `%matplotlib inline`",
        (
            top("%matplotlib inline"),
            after(
                "fit",
                "%%time\nparams, losses = fit(jax.random.key(0), 20, 64, 1e-2, SIZES)\nprint(losses[-1])",
            ),
        ),
    ),
    Honest(
        "06-hints-print-rerun-raise",
        N,
        "habit",
        "`predict` with hints and a docstring, a print in `plot_fit`, `make_dataset` run twice, a "
        "last cell that raises",
        (
            rewrite(
                "predict",
                '''
def predict(params: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    """The MLP on a batch x (n, d_in): tanh hidden layers, a linear output (n, d_out)."""
    *hidden, last = params
    for layer in hidden:
        x = jnp.tanh(x @ layer["W"] + layer["b"])
    return x @ last["W"] + last["b"]
''',
            ),
            prefix("plot_fit", "", 'print("plot_fit is defined")'),
            run_again("make_dataset"),
            at_end(
                "# The pitfall: x must be (n, 1), not (n,).\n"
                "predict(init_params(jax.random.key(0), SIZES), jnp.linspace(-3.0, 3.0, 5))"
            ),
        ),
    ),
    Honest(
        "06-spec-constants",
        N,
        "habit",
        "`train_epoch_sharded` through module-level constants `DATA_SPEC = P(BATCH)` and a jitted "
        "helper of the student's own",
        (
            after_imports(
                """
BATCH = "batch"  # the mesh axis the data is split over
DATA_SPEC = P(BATCH)  # x and y: rows split over the devices
BATCH_SPEC = P(None, BATCH)  # (n_batches, batch_size, 1): each batch split over the devices
"""
            ),
            rewrite(
                "train_epoch_sharded",
                '''
@functools.partial(jax.jit, static_argnames=("batch_size", "mesh"))
def _epoch_on_mesh(params, opt_state, key, x, y, batch_size, lr, mesh):
    """train_epoch with every batch constrained to BATCH_SPEC on `mesh`."""
    n_batches = x.shape[0] // batch_size
    perm = jax.random.permutation(key, x.shape[0])
    idx = perm[: n_batches * batch_size].reshape(n_batches, batch_size)
    per_batch = NamedSharding(mesh, BATCH_SPEC)
    xb = x.at[idx].get(out_sharding=per_batch)
    yb = y.at[idx].get(out_sharding=per_batch)

    def step(carry, batch):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(mse_loss)(params, *batch)
        params, opt_state = adam_update(grads, opt_state, params, lr)
        return (params, opt_state), loss

    (params, opt_state), losses = lax.scan(step, (params, opt_state), (xb, yb))
    return params, opt_state, jnp.mean(losses)


def train_epoch_sharded(params, opt_state, key, x, y, batch_size, lr):
    """q5's epoch with x and y split over a mesh of all devices."""
    mesh = jax.make_mesh((jax.device_count(),), (BATCH,))
    x = jax.device_put(x, NamedSharding(mesh, DATA_SPEC))
    y = jax.device_put(y, NamedSharding(mesh, DATA_SPEC))
    params, opt_state = jax.device_put((params, opt_state), NamedSharding(mesh, P()))
    return _epoch_on_mesh(params, opt_state, key, x, y, batch_size, lr, mesh)
''',
            ),
        ),
    ),
    Honest(
        "06-capstone-own-way",
        N,
        "habit",
        "`train_and_evaluate` on an Auto mesh with `with_sharding_constraint`, a `mkstemp` temporary "
        "file, `jax.device_get` copies of the best and a logging `print` per epoch",
        (
            rewrite(
                "train_and_evaluate",
                '''
from jax.sharding import AxisType


@functools.partial(
    jax.jit, static_argnames=("batch_size", "warmup", "total", "mesh"), donate_argnums=(0, 1)
)
def _epoch(params, opt_state, key, x, y, batch_size, base_lr, warmup, total, max_norm, mesh):
    nb = x.shape[0] // batch_size
    idx = jax.random.permutation(key, x.shape[0])[: nb * batch_size].reshape(nb, batch_size)
    spread = NamedSharding(mesh, P(None, "batch"))
    xb, yb = lax.with_sharding_constraint((x[idx], y[idx]), spread)

    def step(carry, batch):
        p, s = carry
        loss, g = jax.value_and_grad(mse_loss)(p, *batch)
        norm = jnp.sqrt(sum(jnp.vdot(leaf, leaf) for leaf in jax.tree.leaves(g)))
        g = jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), g)
        p, s = adam_update(g, s, p, lr_schedule(s["t"], base_lr, warmup, total))
        return (p, s), (loss, norm)

    (params, opt_state), (losses, norms) = lax.scan(step, (params, opt_state), (xb, yb))
    return params, opt_state, losses, norms


def _save_atomically(path, state, epoch):
    handle, temporary = tempfile.mkstemp(suffix=".npz", dir=os.path.dirname(path))
    os.close(handle)
    save_checkpoint(temporary, state, epoch)
    os.replace(temporary, path)


def train_and_evaluate(config):
    """The capstone run, written my way."""
    mesh = jax.make_mesh((jax.device_count(),), ("batch",), axis_types=(AxisType.Auto,))
    k_data, k_test, k_init, k_train = jax.random.split(config["key"], 4)
    x, y = jax.device_put(make_dataset(k_data, 1024), NamedSharding(mesh, P("batch")))
    x_val, y_val = make_dataset(k_test, 256)
    n, bs = config["n_epochs"], config["batch_size"]
    nb = 1024 // bs
    params = init_params(k_init, config["sizes"])
    fresh = {
        "params": params,
        "opt_state": adam_init(params),
        "best_params": jax.device_get(params),
        "best_val": np.float32(np.inf),
        "best_epoch": np.int32(-1),
        "history": {
            "train_loss": np.zeros(n, np.float32),
            "val_mse": np.zeros(n, np.float32),
            "grad_norm": np.zeros((n, nb), np.float32),
        },
    }
    state, start = fresh, 0
    if os.path.isfile(config["checkpoint_path"]):
        state, start = load_checkpoint(config["checkpoint_path"], fresh)
    hist = {k: np.array(v) for k, v in state["history"].items()}
    best = (state["best_params"], float(state["best_val"]), int(state["best_epoch"]))
    p, s = jax.device_put((state["params"], state["opt_state"]), NamedSharding(mesh, P()))
    speeds = []
    for e in range(start, n):
        t0 = time.perf_counter()
        p, s, losses, norms = _epoch(
            p, s, jax.random.fold_in(k_train, e), x, y, bs,
            config["base_lr"], config["warmup"], config["total"], config["max_norm"], mesh,
        )
        losses = jax.block_until_ready(losses)
        speeds.append(nb * bs / (time.perf_counter() - t0))
        hist["train_loss"][e], hist["grad_norm"][e] = np.mean(np.asarray(losses)), np.asarray(norms)
        hist["val_mse"][e] = mse_loss(p, x_val, y_val)
        print(f"epoch {e}: loss {hist['train_loss'][e]:.4f}, val {hist['val_mse'][e]:.4f}")
        if hist["val_mse"][e] < np.float32(best[1]):
            best = (jax.device_get(p), float(hist["val_mse"][e]), e)
        if (e + 1) % config["checkpoint_every"] == 0 or e + 1 == n:
            _save_atomically(
                config["checkpoint_path"],
                {"params": p, "opt_state": s, "best_params": best[0], "best_val": np.float32(best[1]),
                 "best_epoch": np.int32(best[2]), "history": hist},
                e + 1,
            )
    return {"params": p, "best_params": best[0], "best_epoch": best[2], "history": hist,
            "examples_per_second": np.asarray(speeds)}
''',
            ),
        ),
    ),
    Honest(
        "06-optional-wandb-after-setup",
        N,
        "habit",
        "`try: import wandb / except ImportError` right after the set-up cell, so that every "
        "import of the set-up cell is bound before it",
        (
            after_imports("""
try:
    import wandb
except ImportError:
    wandb = None
"""),
        ),
    ),
    Honest(
        "06-otter-export-zip",
        N,
        "form",
        "the notebook in a zip as otter's `grader.export()` writes it (`.OTTER_LOG` included)",
        form="otter-zip",
    ),
]
BY_NAME = {h.name: h for h in HONEST}
ASSIGNMENTS = [B, P, A, J, T, N]


def grade_batch(aid: str, tmp: Path) -> dict[str, dict]:
    """``aid``'s honest notebooks and its control (the reference's graded cells alone), graded
    in one batch under the course's own limits: each row's results.json, by submission file."""
    from autograder.release import build

    course = load_course()
    a = course.assignment(aid)
    build.build_assignment(a, course, release_root=tmp / "release", build_root=tmp / "build")
    reference = nbformat.read(tmp / "build" / aid / "reference.ipynb", as_version=4)
    lean = graded_cells(reference, list(a.function_question()))
    subs = tmp / "subs"
    subs.mkdir()
    nbformat.write(lean, subs / "control.ipynb")
    for h in HONEST:
        if h.assignment == aid:
            (subs / h.file).write_bytes(h.data(lean, a.notebook))
    out = tmp / "out"
    warnings = io.StringIO()  # why a batch failed, in the assertion
    with contextlib.redirect_stderr(warnings):
        status = grade.run(
            GradeOptions(
                assignment=aid,
                submissions=subs,
                out=out,
                jobs=2,
                quiet=True,
                summary=False,
                course=course,
                seed=SEED,
            )
        )
    assert status == 0, f"grading {aid} failed: {warnings.getvalue()[-3000:]}"
    rows = [json.loads(p.read_text()) for p in (out / "results").glob("*.json")]
    return {r["extra_data"]["submission"]: r for r in rows}


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, dict]]:
    """:func:`grade_batch` of an assignment, graded once for the module on first use (the tests
    come in assignment order). A batch that failed fails each of its tests with its reason."""
    done: dict[str, dict[str, dict] | str] = {}

    def get(aid: str) -> dict[str, dict]:
        if aid not in done:
            try:
                done[aid] = grade_batch(aid, tmp_path_factory.mktemp(f"honest-{aid}"))
            except AssertionError as e:
                done[aid] = str(e)
        result = done[aid]
        if isinstance(result, str):
            pytest.fail(result)
        return result

    return get


def _verdict(row: dict, points: dict[str, int]) -> str:
    x = row["extra_data"]
    got = x["questions"]
    lost = {q: round(p - got.get(q, 0.0), 2) for q, p in points.items() if got.get(q, 0.0) < p}
    notes = "; ".join(x.get("notes", [])) or "none"
    return (
        f"status {x['status']}, {sum(got.values()):g}/{x['possible']:g}, lost {lost or 'nothing'}: "
        f"{row['output']} (notes: {notes})"
    )


def _full_marks(row: dict) -> bool:
    x = row["extra_data"]
    text = " ".join([row["output"], *x.get("notes", [])]).lower()
    total = round(sum(x["questions"].values()), 6)
    return x["status"] == "graded" and total == x["possible"] and "tampered" not in text


def test_enough_notebooks_in_every_class_and_assignment() -> None:
    assert len(HONEST) >= 30
    assert len(BY_NAME) == len(HONEST)
    assert {h.habit for h in HONEST} == set(CLASSES)
    assert {h.assignment for h in HONEST} == set(ASSIGNMENTS)
    assert [h.assignment for h in HONEST] == sorted(h.assignment for h in HONEST)  # batch by batch
    assert all(h.name.startswith(h.assignment[:3]) for h in HONEST)


@pytest.mark.parametrize("aid", [pytest.param(a, marks=pytest.mark.assignment(a)) for a in ASSIGNMENTS])
def test_the_control_keeps_full_marks(batches: Callable[[str], dict[str, dict]], aid: str) -> None:
    row = batches(aid)["control.ipynb"]
    ok = _full_marks(row)
    assert ok, f"the reference's cells alone: {_verdict(row, load_course().assignment(aid).points)}"


@pytest.mark.parametrize(
    "name", [pytest.param(h.name, marks=pytest.mark.assignment(h.assignment)) for h in HONEST]
)
def test_honest_notebook_keeps_full_marks(batches: Callable[[str], dict[str, dict]], name: str) -> None:
    h = BY_NAME[name]
    row = batches(h.assignment)[h.file]
    ok = _full_marks(row)
    verdict = _verdict(row, load_course().assignment(h.assignment).points)
    assert ok, f"{h.name} [{CLASSES[h.habit]}: {h.what}]: {verdict}"
