"""Source gates read the submitted cells in the grader, resolve names as Python does, and fail
closed on what they cannot resolve (autograder/grading/gates.py). Each honest habit keeps the gate's
reading clean; each attack either shows the library call or loop it hides, or fails closed."""

from __future__ import annotations

import pytest

from autograder.grading.gates import source_namespace
from autograder.probing import ProbeError, forbidden_names, python_loops, source_of

PLAIN = "import jax\nimport jax.numpy as jnp\n\ndef outer(x, y):\n    return helper(x)[:, None] * y\n"
HELPER = "def helper(x):\n    return x\n"
ANSWER = "import jax\nimport jax.numpy as jnp\n\ndef outer(x, y):\n    return x[:, None] * y[None, :]\n"
FORBIDDEN = {"outer", "einsum", "tensordot", "kron"}


def read(cells: list[str], name: str = "outer") -> str:
    return source_of(getattr(source_namespace(cells, [name]), name))


def clean(cells: list[str]) -> bool:
    """The gate of 01 q2 passes: no loop and no library answer in what `outer` reaches."""
    text = read(cells)
    return not python_loops(text) and not forbidden_names(text, FORBIDDEN)


def test_a_plain_def_is_read_with_the_helpers_it_reaches_and_library_names_in_full() -> None:
    text = read(
        [PLAIN, "def helper(x):\n    return jnp.outer(x, x)\n", "def unused():\n    return jax.jacfwd"]
    )
    assert "jax.numpy.outer(l__x, l__x)" in text
    assert "jacfwd" not in text  # never reached


# Honest habits: each keeps `outer` clean (on the old gates each of these failed it).
HONEST = {
    "local named like a demo global": [
        "import jax\nimport jax.numpy as jnp\ndef outer(x, y):\n    J = x[:, None]\n    n = y[None, :]\n    return J * n\n",
        "J = jax.jacfwd(jnp.sin)(1.0)\nn = jnp.outer(jnp.ones(2), jnp.ones(2))",
    ],
    "a test loop in another cell": [ANSWER, "for x in [jnp.ones(2), jnp.ones(3)]:\n    print(outer(x, x))"],
    "a check cell comparing with the library": [ANSWER, "assert jnp.allclose(outer(a, b), jnp.outer(a, b))"],
    "i = j = arange": [
        "import jax.numpy as jnp\ndef outer(x, y):\n    i = j = jnp.arange(3)\n    return x[:, None] * y[None, :]\n"
    ],
    "own helper named like a library function": [
        "import jax.numpy as jnp\ndef einsum(x, y):\n    return x[:, None] * y[None, :]\n"
        "def outer(x, y):\n    return einsum(x, y)\n"
    ],
    "globals, vars and sys.modules read": [
        ANSWER,
        'if "key" not in globals():\n    key = 1\nimport sys\nIN_COLAB = "google.colab" in sys.modules\n'
        "print(vars(jnp))\nprint(globals().get('key'))",
    ],
    "f = jax.jit(f)": [ANSWER, "outer = jax.jit(outer)"],
    "partial(jax.jit) decorator": [
        "import jax\nfrom functools import partial\n@partial(jax.jit, static_argnames='k')\n"
        "def outer(x, y, k=1):\n    return x[:, None] * y[None, :]\n"
    ],
    "%%time cell": ["import jax\n", "%%time\ndef outer(x, y):\n    return x[:, None] * y[None, :]\n"],
    "magics, shell and help": [
        ANSWER,
        "%timeit outer(a, b)\nr = %timeit -o outer(a, b)\nouter?\n!pip list\n%matplotlib inline",
    ],
    "a % continuation line": [
        "import jax\ndef outer(x, y):\n    msg = ('%d x %d'\n           % (1, 2))\n    return x[:, None] * y[None, :]\n"
    ],
    "redefined twice": [ANSWER, ANSWER],
    "modules handed to a test function": [
        ANSWER,
        "def test_outer(outer, jax, jnp):\n    assert getattr(jax, 'jit') and jnp.allclose(outer(jnp.ones(2), jnp.ones(2)), 1)\ntest_outer(outer, jax, jnp)",
    ],
    "library attributes read by a computed name": [
        ANSWER,
        "def check(jax):\n    return [getattr(jax, n) for n in ('jit', 'vmap')]\ncheck(jax)",
    ],
    "import pandas": [ANSWER, "import pandas as pd\nimport math, itertools, functools"],
    "from jax import numpy as jnp, library functions in a list": [
        "from jax import numpy as jnp\ndef outer(x, y):\n    return x[:, None] * y[None, :]\n",
        "fns = [jnp.sum, jnp.mean]\nprint([f(jnp.ones(2)) for f in fns])\nprint(type(jnp.ones(2)).__name__)",
    ],
    "a module named through an attribute": [
        "import jax\njnp = jax.numpy\ndef outer(x, y):\n    return x[:, None] * jnp.asarray(y)[None, :]\n",
        "ACTS = {'relu': jax.nn.relu, 'tanh': jax.numpy.tanh}\nprint(ACTS)",
    ],
    "library functions handed to helpers that read them": [
        ANSWER,
        "def apply(f, x):\n    return f(x)\napply(jnp.sin, 1.0)\n"
        "def describe(f):\n    name = f.__name__\n    return name\ndescribe(jnp.outer)",
    ],
    "a constant dict, a local dict filled, a results dict filled": [
        "import jax.numpy as jnp\nCFG = {'scale': 1.0}\nW = jnp.ones(3)\n"
        "def outer(x, y):\n    d = {}\n    d['a'] = x\n    return CFG['scale'] * W.sum() * d['a'][:, None] * y[None, :]\n",
        "results = {}\nresults['outer'] = outer(jnp.ones(2), jnp.ones(2))\nprint(CFG['scale'], jnp.sum(W))\n"
        "def show(d):\n    for k in d:\n        print(k, d[k])\nshow(CFG)",
    ],
    "a memo dict filled by the helper the answer calls": [
        "import jax\nimport jax.numpy as jnp\n_scaled = {}\ndef scale(n):\n    if n not in _scaled:\n"
        "        _scaled[n] = jnp.arange(n) / n\n    return _scaled[n]\n"
        "def outer(x, y):\n    return x[:, None] * y[None, :] * scale(1)[0]\n"
    ],
    # Issue 38's corpus: each of these failed every gate of its notebook.
    "a module as a loop's value in a last cell": [
        ANSWER,
        "import numpy as np\nfor xp in (np, jnp):\n    print(xp.sum(xp.ones(2)), outer(xp.ones(2), xp.ones(2)))",
    ],
    "a module as a default argument": [ANSWER, "def summarize(values, xp=jnp):\n    return xp.mean(values)"],
    "an optional import that fails": [
        "try:\n    import wandb\nexcept ImportError:\n    wandb = None\n" + ANSWER,
        "if wandb is not None:\n    wandb.log({'x': 1})",
    ],
    # An optional import of a module the grader lacks fails in the sandbox, so it binds nothing
    # there: builtins the answer calls, and globals bound before it, are what they were.
    "an optional import beside an answer that calls builtins": [
        "try:\n    import wandb\nexcept ImportError:\n    wandb = None\n"
        "import jax.numpy as jnp\ndef outer(x, y):\n    n, m = len(x), max(len(y), 1)\n"
        "    return x[:n, None] * y[None, :m]\n"
    ],
    "an optional import after the set-up cell": [
        "import jax\nimport jax.numpy as jnp\n",
        "try:\n    import wandb\nexcept ModuleNotFoundError:\n    wandb = None\n",
        "def outer(x, y):\n    return jnp.multiply(x[:, None], y[None, :])\n",
    ],
    "a dataclass of settings read by the answer": [
        "import dataclasses\nimport jax.numpy as jnp\n@dataclasses.dataclass(frozen=True)\n"
        "class Config:\n    scale: float = 1.0\n    name: str = 'outer'\nCFG = Config()\n"
        "def outer(x, y):\n    return CFG.scale * x[:, None] * y[None, :]\n"
    ],
    "a pytree dataclass the answer builds": [
        "import jax, jax.numpy as jnp\nfrom dataclasses import dataclass\n"
        "@jax.tree_util.register_dataclass\n@dataclass\nclass Pair:\n    a: jax.Array\n    b: jax.Array\n"
        "def outer(x, y):\n    p = Pair(x[:, None], y[None, :])\n    return p.a * p.b\n"
    ],
    "an exception class the answer raises": [
        "import jax.numpy as jnp\nclass IncompatibleShapes(ValueError):\n    pass\n"
        "def outer(x, y):\n    if x.ndim != 1:\n        raise IncompatibleShapes('x must be 1-d')\n"
        "    return x[:, None] * y[None, :]\n"
    ],
    "constants read from a class": [
        "import jax.numpy as jnp\nclass Const:\n    EPS = 1e-6\n    SCALE = 2.0\n"
        "def outer(x, y):\n    return Const.SCALE / Const.SCALE * x[:, None] * y[None, :] + 0 * Const.EPS\n"
    ],
    "logging before a raise": [
        "import logging\nimport jax.numpy as jnp\nlog = logging.getLogger(__name__)\n"
        "def outer(x, y):\n    if x.ndim != 1:\n        logging.warning('x must be 1-d')\n"
        "        log.error('bad')\n        raise ValueError('x')\n    return x[:, None] * y[None, :]\n"
    ],
    "a debug flag read from os.environ": [
        "import os\nimport jax.numpy as jnp\nDEBUG = os.environ.get('DEBUG') == '1'\n"
        "def outer(x, y):\n    if DEBUG:\n        print(x.shape)\n    return x[:, None] * y[None, :]\n"
    ],
    "a settings dict rewritten with the same values": [
        "import jax.numpy as jnp\nCFG = {'scale': 1.0}\n"
        "def outer(x, y):\n    return CFG['scale'] * x[:, None] * y[None, :]\n",
        "CFG['scale'] = 1.0\nCFG.update({'scale': 1.0})",
    ],
    "a docstring set on the answer": [ANSWER, "outer.__doc__ = 'The outer product, by broadcasting.'"],
    "annotated with JAX's types": [
        "import jax\nimport jax.numpy as jnp\nfrom typing import Optional\n"
        "def outer(x: jax.Array, y: jnp.ndarray, scale: Optional[float] = None) -> jax.Array:\n"
        "    out: jax.Array = x[:, None] * y[None, :]\n    return out\n"
    ],
    "annotations under `from __future__ import annotations`": [
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from jax import Array\nimport jax.numpy as jnp\n"
        "def outer(x: Array, y: Array) -> Array:\n    return x[:, None] * y[None, :]\n"
    ],
    "a settings class with annotated fields": [
        "import jax.numpy as jnp\nclass Cfg:\n    scale: float = 1.0\n    name: str\n"
        "def outer(x, y):\n    return Cfg.scale * x[:, None] * y[None, :]\n"
    ],
    "jnp.vectorize (vmap, not a Python loop)": [
        "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.vectorize(lambda a, b: a * b)(x[:, None], y[None, :])\n"
    ],
    "a tree map over parameters in another cell": [
        ANSWER,
        "import jax\nparams = {'w': jnp.ones(2)}\nparams = jax.tree.map(lambda p: p * 0.5, params)\n"
        "print(max(params, key=len), sorted(params))",
    ],
    "a helper that sets attributes of the notebook's own object": [
        ANSWER,
        "class Box:\n    pass\ndef fill(b):\n    b.value = 1\nbox = Box()\nfill(box)\nfill(Box())",
    ],
}


@pytest.mark.parametrize("name", HONEST)
def test_honest_habits_keep_the_gate_clean(name: str) -> None:
    assert clean(HONEST[name]), read(HONEST[name])


# Attacks: what runs has a loop or the library answer; the gate sees it or cannot read `outer`.
ATTACKS = {
    "alias imported from a library": "from jax.numpy import outer as _o\ndef outer(x, y):\n    return _o(x, y)\n",
    "loop as map(lambda)": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.stack(list(map(lambda a: a * y, x)))\n",
    "recursion": "import jax.numpy as jnp\ndef outer(x, y):\n    return x[:0] if len(x) == 0 else jnp.concatenate([x[:1] * y, outer(x[1:], y)])\n",
    "star import over the def": "def outer(x, y):\n    return x[:, None] * y\nfrom mymodule import *\n",
    "match capture rebinds": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\nmatch jnp.outer:\n    case outer:\n        pass\n",
    "functools decorator that replaces": "import functools, jax.numpy as jnp\n@functools.singledispatch\ndef outer(x, y):\n    return x\n",
    "lambda bound to a library call": "import jax.numpy as jnp\nouter = lambda x, y: jnp.outer(x, y)\n",
    "globals write": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\nglobals()['outer'] = jnp.outer\n",
    "code object swap": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\ndef o2(x, y):\n    return jnp.outer(x, y)\nouter.__code__ = o2.__code__\n",
    "library patched": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.multiply(x, y)\njnp.multiply = jnp.outer\n",
    "module alias patched": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.multiply(x, y)\nm = jnp\nm.multiply = jnp.outer\n",
    "getattr by string": "import importlib\ndef outer(x, y):\n    return getattr(importlib.import_module('jax.numpy'), 'outer')(x, y)\n",
    "global in a function": "import jax.numpy as jnp\ndef outer(x, y):\n    return helper(x, y)\ndef helper(x, y):\n    return x\ndef swap():\n    global helper\n    helper = jnp.outer\n",
    "exec": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\nexec('outer = jnp.outer')\n",
    "sys.modules main": "import sys, jax.numpy as jnp\ndef outer(x, y):\n    return x\nsys.modules['__main__'].outer = jnp.outer\n",
    "timeit global": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\n%timeit global outer; outer = jnp.outer\n",
    "bound in an if": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\nif True:\n    outer = jnp.outer\n",
    "library function itself": "from jax.numpy import outer\n",
    "module handed to a patcher": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.multiply(x, y)\ndef patch(m):\n    m.multiply = m.outer\npatch(jnp)\n",
    "gc reached through getattr": "import gc, jax.numpy as jnp\ndef outer(x, y):\n    return x\nfor d in getattr(gc, 'get_objects')():\n    if isinstance(d, dict) and 'outer' in d:\n        d['outer'] = jnp.outer\n",
    "module attribute by computed name": "import jax.numpy as jnp\ndef outer(x, y):\n    return x\nname = 'get' + '_objects'\nimport gc\nobjs = getattr(gc, name)()\n",
    "class instance": "class O:\n    def __call__(self, x, y):\n        return x\nouter = O()\n",
    # A name added to a library at run time, then called by `outer` under a name no gate forbids.
    "`from jax import numpy` handed to a patcher": "from jax import numpy as jnp\ndef outer(x, y):\n    return jnp.times(x, y)\ndef patch(m):\n    m.times = m.outer\npatch(jnp)\n",
    "dotted module handed to a patcher": "import jax, jax.numpy as jnp\ndef outer(x, y):\n    return jnp.times(x, y)\ndef patch(m):\n    m.times = m.outer\npatch(jax.numpy)\n",
    "module alias made from an attribute": "import jax\nm = jax.numpy\ndef outer(x, y):\n    return m.times(x, y)\nm.times = m.outer\n",
    "library class handed to a patcher": "import jax, jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\ndef plant(c):\n    c.times = lambda a, b: jnp.outer(a, b)\nplant(jax.Array)\n",
    "class of an array patched": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\ntype(jnp.zeros(1)).times = lambda a, b: jnp.outer(a, b)\n",
    "base class through __mro__ patched": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\njnp.zeros(1).__class__.__mro__[1].times = lambda a, b: jnp.outer(a, b)\n",
    "class handed to a patcher": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\ndef plant(c):\n    c.times = lambda a, b: jnp.outer(a, b)\nplant(jnp.zeros(1).__class__)\n",
    # What a global holds, changed in place after it is bound: the reading sees only `H = {}`.
    "a dict filled after it is bound": "import jax.numpy as jnp\nH = {}\nH['go'] = jnp.outer\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "a list appended to": "import jax.numpy as jnp\nL = []\nL.append(jnp.outer)\ndef outer(x, y):\n    return L[0](x, y)\n",
    "a helper fills the dict": "import jax.numpy as jnp\nH = {}\ndef fill(d):\n    d['go'] = jnp.outer\nfill(H)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "a helper's helper fills the dict": "import jax.numpy as jnp\nH = {}\ndef fill(d):\n    fill2(d)\ndef fill2(e):\n    e['go'] = jnp.outer\nfill(H)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "dict.update called on it": "import jax.numpy as jnp\nH = {}\ndict.update(H, go=jnp.outer)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "an attribute of a helper function": "import jax.numpy as jnp\ndef helper(x):\n    return x\nhelper.go = jnp.outer\ndef outer(x, y):\n    return helper.go(x, y)\n",
    "another name of the dict filled": "import jax.numpy as jnp\nH = {}\nG = H\nG['go'] = jnp.outer\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by a default argument": "import jax.numpy as jnp\nH = {}\ndef noop(d=H.update(go=jnp.outer)):\n    return d\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by a function then defined again": "import jax.numpy as jnp\nH = {}\ndef setup():\n    H['go'] = jnp.outer\nsetup()\ndef setup():\n    pass\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by operator.setitem imported by name": "import jax.numpy as jnp\nfrom operator import setitem\nH = {}\nsetitem(H, 'go', jnp.outer)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by its bound method handed to map": "import jax.numpy as jnp\nH = {}\nlist(map(H.__setitem__, ['go'], [jnp.outer]))\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by dict's method kept in a name": "import jax.numpy as jnp\nH = {}\nput = dict.__setitem__\nput(H, 'go', jnp.outer)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by a helper through its bound method": "import jax.numpy as jnp\nH = {}\ndef fill(d):\n    put = d.__setitem__\n    put('go', jnp.outer)\nfill(H)\ndef outer(x, y):\n    return H['go'](x, y)\n",
    "filled by a function called later": "import jax.numpy as jnp\nH = {}\ndef setup():\n    H['go'] = jnp.outer\nsetup()\ndef outer(x, y):\n    return H['go'](x, y)\n",
    # Issue 38's bypasses: each scored 100 on the old gates. Bindings come from symtable now.
    "global in a class body": "import jax.numpy as jnp\ndef outer(x, y):\n    return helper(x, y)\ndef helper(x, y):\n    return x\nclass C:\n    global helper\n    helper = jnp.outer\n",
    "walrus in a default argument": "import jax.numpy as jnp\ndef outer(x, y):\n    return helper(x, y)\ndef helper(x, y):\n    return x\ndef noop(z=(helper := jnp.outer)):\n    return z\n",
    "walrus in a class decorator": "import jax.numpy as jnp\ndef outer(x, y):\n    return helper(x, y)\ndef helper(x, y):\n    return x\n@(lambda c: c) if (helper := jnp.outer) else None\nclass C:\n    pass\n",
    "a name planted into builtins": "import builtins, types, jax.numpy as jnp\ndef outer(x, y):\n    return planted(x, y)\nf = types.FunctionType(compile('import builtins, jax.numpy as j; builtins.planted = j.outer', 'x', 'exec'), {})\nf()\n",
    # A module written by the notebook is found only where the notebook adds its folder to
    # the places modules are found (the sandbox's own are read-only): `site` does that.
    "module written, its folder added through site": "import site, jax.numpy as jnp\n"
    "open('mine.py', 'w').write('import builtins, jax.numpy as j\\nbuiltins.max = j.outer\\n')\n"
    "site.addsitedir('.')\nimport mine\ndef outer(x, y):\n    return max(x, y)\n",
    "a class decorator that plants a method": "import jax.numpy as jnp\ndef plant(c):\n"
    "    c.go = staticmethod(jnp.outer)\n    return c\n@plant\nclass H:\n    pass\n"
    "def outer(x, y):\n    return H.go(x, y)\n",
    "a dataclass whose factory is the answer": "import dataclasses, jax.numpy as jnp\n"
    "@dataclasses.dataclass\nclass H:\n    go: object = dataclasses.field(default_factory=lambda: jnp.outer)\n"
    "def outer(x, y):\n    return H().go(x, y)\n",
    "module written, its folder added through os.sys.path": "import os, jax.numpy as jnp\n"
    "open('mine.py', 'w').write('import builtins, jax.numpy as j\\nbuiltins.max = j.outer\\n')\n"
    "os.sys.path.append('.')\nimport mine\ndef outer(x, y):\n    return max(x, y)\n",
    "sys.modules reached as another module's attribute": "import logging, jax.numpy as jnp\n"
    "def outer(x, y):\n    return x\nlogging.sys.modules['__main__'].outer = jnp.outer\n",
    "setattr on a class": "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\nsetattr(type(jnp.zeros(1)), 'times', lambda a, b: jnp.outer(a, b))\n",
    # A library attribute found by a computed name without `getattr`: each scored 100 before.
    "operator.attrgetter": "import operator, jax.numpy as jnp\ndef outer(x, y):\n    return operator.attrgetter('out' + 'er')(jnp)(x, y)\n",
    "attrgetter imported by name": "from operator import attrgetter as ag\nimport jax.numpy as jnp\ndef outer(x, y):\n    return ag('out' + 'er')(jnp)(x, y)\n",
    "operator.methodcaller": "import operator, jax.numpy as jnp\ndef outer(x, y):\n    return operator.methodcaller('__getattribute__', 'out' + 'er')(jnp)(x, y)\n",
    "object.__getattribute__": "import jax.numpy as jnp\ndef outer(x, y):\n    return object.__getattribute__(jnp, 'out' + 'er')(x, y)\n",
    "type(module).__getattribute__": "import jax.numpy as jnp\ndef outer(x, y):\n    return type(jnp).__getattribute__(jnp, 'out' + 'er')(x, y)\n",
    "__getattribute__ of a parameter": "import jax.numpy as jnp\ndef outer(x, y):\n    return (lambda m: m.__getattribute__('out' + 'er'))(jnp)(x, y)\n",
    "typing.ForwardRef evaluated": "import typing\ndef outer(x, y):\n    return typing.ForwardRef(\"__import__('jax').numpy.outer\")._evaluate(None, None, frozenset())(x, y)\n",
    "a forward reference made by typing.Optional, evaluated": "import typing, jax.numpy as jnp\ndef outer(x, y):\n    return typing.Optional['jnp.outer'].__args__[0]._evaluate({'jnp': jnp}, None, frozenset())(x, y)\n",
    "string annotation evaluated by get_type_hints": "import typing, jax.numpy as jnp\ndef _h(a: 'jnp.outer'):\n    pass\ndef outer(x, y):\n    return typing.get_type_hints(_h)['a'](x, y)\n",
    # Annotations run when their def or class statement does: what they hold is read as code.
    "a parameter's annotation read back": "import jax.numpy as jnp\ndef _h(a: jnp.outer):\n    pass\ndef outer(x, y):\n    return _h.__annotations__['a'](x, y)\n",
    "a return annotation read by get_type_hints": "import typing, jax.numpy as jnp\ndef _h() -> jnp.outer:\n    pass\ndef outer(x, y):\n    return typing.get_type_hints(_h)['return'](x, y)\n",
    "a class body's annotation": "import jax.numpy as jnp\nclass K:\n    f: jnp.outer\ndef outer(x, y):\n    return K.__annotations__['f'](x, y)\n",
    "a dataclass field's type": "import dataclasses, jax.numpy as jnp\nclass K:\n    f: jnp.outer\nD = dataclasses.dataclass(K)\ndef outer(x, y):\n    return dataclasses.fields(D)[0].type(x, y)\n",
    "a NamedTuple field's annotation": "import typing, jax.numpy as jnp\nclass K(typing.NamedTuple):\n    f: jnp.outer = 0\ndef outer(x, y):\n    return typing.get_type_hints(K)['f'](x, y)\n",
    # A library call that runs a function once per element is a Python loop.
    "jax.tree.map over the rows": "import jax, jax.numpy as jnp\ndef outer(x, y):\n    return jnp.stack(jax.tree.map(lambda r: r * y, list(x)))\n",
    "tree_map imported by name": "from jax.tree_util import tree_map as tm\nimport jax.numpy as jnp\ndef outer(x, y):\n    return jnp.stack(tm(lambda r: r * y, [*x]))\n",
    "numpy.vectorize": "import numpy as np, jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(np.vectorize(lambda a, b: a * b)(np.asarray(x)[:, None], np.asarray(y)[None, :]))\n",
    "numpy.frompyfunc": "import numpy as np\ndef outer(x, y):\n    return np.frompyfunc(lambda a, b: a * b, 2, 1)(np.asarray(x)[:, None], np.asarray(y)[None, :])\n",
    "numpy.apply_along_axis": "import numpy as np\ndef outer(x, y):\n    return np.apply_along_axis(lambda r: r * np.asarray(y), 1, np.asarray(x)[:, None])\n",
    "sorted with a key that computes": "import jax.numpy as jnp\ndef outer(x, y):\n    rows = []\n    sorted(range(len(x)), key=lambda i: rows.append(x[i] * y))\n    return jnp.stack(rows)\n",
    "iter with a sentinel": "import jax.numpy as jnp\ndef outer(x, y):\n    it = iter(x)\n    return jnp.stack(list(iter(lambda: next(it, None), None)))[:, None] * y\n",
}


@pytest.mark.parametrize("name", ATTACKS)
def test_attacks_show_what_runs_or_fail_closed(name: str) -> None:
    ns = source_namespace([ATTACKS[name]], ["outer"])
    try:
        text = source_of(ns.outer)
    except ProbeError as e:
        assert "`outer`" in str(e)
        return
    assert python_loops(text) or forbidden_names(text, FORBIDDEN), text


def test_a_name_added_to_a_library_while_the_notebook_ran_fails_the_gates_that_read_it() -> None:
    """The sandbox reports names added to a library's modules, classes and functions; a gate
    cannot read what such a name runs. A special method added to a class (`__getattr__`)
    changes every attribute of its objects, so it fails every gate; an added name nobody
    reads, or a harmless special name, fails none."""
    cells = ["import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\n"]
    with pytest.raises(ProbeError, match=r"reads `\.times`.*jaxlib\._jax\.ArrayImpl\.times"):
        source_of(source_namespace(cells, ["outer"], {"times": "jaxlib._jax.ArrayImpl.times"}).outer)
    hook = {"__getattr__": "jaxlib._jax.ArrayImpl.__getattr__"}
    with pytest.raises(ProbeError, match=r"runs under `__getattr__`"):
        source_of(source_namespace([ANSWER], ["outer"], hook).outer)
    harmless = {"ifrt_device_iterator": "jaxlib._jax.DeviceList.ifrt_device_iterator", "__annotations__": "x"}
    assert clean([ANSWER]) and "def nb__outer" in source_of(
        source_namespace([ANSWER], ["outer"], harmless).outer
    )


def test_a_rewrite_names_its_line() -> None:
    with pytest.raises(ProbeError, match=r"code cell 2, line 1"):
        read([ANSWER, "globals()['outer'] = jnp.outer"])


def test_a_rewrite_of_another_name_leaves_this_gate_alone() -> None:
    assert clean([ANSWER, "globals()['unrelated'] = 3"])


def test_a_local_called_grad_is_not_jax_grad() -> None:
    text = read(["import jax\nfrom jax import grad\ndef f(x):\n    grad = x * 2\n    return grad\n"], "f")
    assert not forbidden_names(text, {"grad"})
    text = read(["import jax\nfrom jax import grad\ndef f(x):\n    return grad(lambda v: v)(x)\n"], "f")
    assert forbidden_names(text, {"grad"}) == ["grad"]


def test_no_module_the_notebook_names_is_imported() -> None:
    import sys

    before = set(sys.modules)
    source_namespace(
        ["from numpy.f2py.__main__ import main\nimport antigravity\ndef outer(x, y):\n    return x\n"],
        ["outer"],
    )
    assert not {"numpy.f2py.__main__", "antigravity"} & (set(sys.modules) - before)


def test_a_cell_that_does_not_parse_binds_nothing() -> None:
    assert "def nb__outer" in read([ANSWER, "outer = (\n"])


def test_sources_are_read_safely_from_several_threads() -> None:
    """A grader with ``--jobs 2`` reads two submissions' sources at once. CPython 3.11's AST
    building keeps its depth in state the interpreter shares, so a thread switch inside one
    parse (a garbage collection can cause one) made another fail with SystemError. Here every
    collection switches threads, and a plain ``ast.parse`` (as a probe judge writes it) runs
    beside the grader's reads."""
    import ast
    import gc
    import threading
    import time

    cells = [PLAIN, HELPER] + [
        f"def f{i}(x):\n    return [[(x + {i}) * (y - {i}) for y in range(3)] for _ in range(2)]"
        for i in range(300)
    ]
    failures: list[BaseException] = []

    def read_many() -> None:
        for _ in range(15):
            try:
                assert "nb__helper" in read(cells)
                ast.parse("\n".join(cells[2:]))
            except BaseException as e:  # noqa: BLE001 - collected for the assertion below
                failures.append(e)

    def switch(phase: str, info: dict) -> None:
        time.sleep(0)

    gc.callbacks.append(switch)
    try:
        threads = [threading.Thread(target=read_many) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.callbacks.remove(switch)
    assert not failures, failures[:2]
