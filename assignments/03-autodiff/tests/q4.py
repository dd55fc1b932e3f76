from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 10

@test_case(points=0, hidden=False)
def test_hvp(hvp):
    import jax.numpy as jnp
    x, v = (jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, -1.0, 2.0]))
    out = hvp(lambda x: jnp.sum(x ** 3) / 6, x, v)
    assert out is not None, 'hvp returned None: fill in its body (it is still the stub `...`)'
    assert out.shape == (3,), f'H @ v has the shape of x, (3,), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.allclose(out, x * v), f'expected {x * v}, got {out}'

@test_case(points=0, hidden=False)
def test_hvp_rules(hvp):
    import ast
    import inspect
    import textwrap
    import jax
    import jax.numpy as jnp
    assert hvp(lambda x: jnp.sum(x ** 3), jnp.ones(2), jnp.ones(2)) is not None, 'hvp returned None: fill in its body (it is still the stub `...`)'

    def f(x):
        return jnp.sum(jnp.tanh(x) * jnp.roll(x, 1))
    n = 2000
    stack, largest = ([jax.make_jaxpr(lambda x, v: hvp(f, x, v))(jnp.ones(n), jnp.ones(n)).jaxpr], 0)
    while stack:
        for eqn in stack.pop().eqns:
            largest = max([largest, *(var.aval.size for var in eqn.outvars)])
            for param in eqn.params.values():
                for sub in param if isinstance(param, (list, tuple)) else [param]:
                    if hasattr(getattr(sub, 'jaxpr', sub), 'eqns'):
                        stack.append(getattr(sub, 'jaxpr', sub))
    assert largest < n * n // 4, 'hvp built an (n, n) array; an HVP never needs the Hessian'
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(hvp)))
    except (OSError, TypeError, SyntaxError):
        return
    forbidden, env = ({'jacfwd', 'jacrev', 'jacobian', 'hessian'}, getattr(hvp, '__globals__', {}))
    used = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in forbidden} | {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.name in forbidden} | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in forbidden and (env.get(n.id) is getattr(jax, n.id))})
    assert not used, f'hvp uses jax.{used[0]}; it builds the whole n x n Hessian; jax.jvp of jax.grad(f) along v never does'

