from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 6

@test_case(points=0, hidden=False)
def test_directional_derivative_scalar(directional_derivative):
    import jax.numpy as jnp
    x, v = (jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 0.0, -1.0]))
    out = directional_derivative(lambda x: jnp.sum(x ** 2), x, v)
    assert out is not None, 'directional_derivative returned None: fill in its body (it is still the stub `...`)'
    assert jnp.shape(out) == (), f'for a scalar f the result is a scalar (shape ()), got shape {jnp.shape(out)}'
    assert jnp.allclose(out, -4.0), f'for sum(x ** 2) it is 2 x @ v = -4.0, got {out}'

@test_case(points=0, hidden=False)
def test_directional_derivative_vector(directional_derivative):
    import jax.numpy as jnp
    x, v = (jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 1.0, 1.0]))
    out = directional_derivative(lambda x: jnp.stack([x[0] * x[1], x[2] ** 2]), x, v)
    assert out is not None, 'directional_derivative returned None: fill in its body (it is still the stub `...`)'
    assert jnp.shape(out) == (2,), f'f: R^3 -> R^2 gives J @ v of shape (2,), got {jnp.shape(out)}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.allclose(out, jnp.array([3.0, 6.0])), f'expected [3. 6.], got {out}'

@test_case(points=0, hidden=False)
def test_directional_derivative_rules(directional_derivative):
    import ast
    import inspect
    import textwrap
    import jax
    import jax.numpy as jnp
    assert directional_derivative(lambda x: x ** 2, jnp.ones(2), jnp.ones(2)) is not None, 'directional_derivative returned None: fill in its body (it is still the stub `...`)'
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(directional_derivative)))
    except (OSError, TypeError, SyntaxError):
        return
    forbidden, env = ({'jacfwd', 'jacrev', 'jacobian', 'hessian'}, getattr(directional_derivative, '__globals__', {}))
    used = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in forbidden} | {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.name in forbidden} | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in forbidden and (env.get(n.id) is getattr(jax, n.id))})
    assert not used, f'directional_derivative uses jax.{used[0]}; it builds the whole Jacobian, while one jax.jvp gives J(x) @ v directly'

