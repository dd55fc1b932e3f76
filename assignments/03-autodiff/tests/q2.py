from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 9

@test_case(points=0, hidden=False)
def test_jacobian_fwd(jacobian_fwd):
    import jax.numpy as jnp
    J = jacobian_fwd(lambda x: jnp.stack([x[0] * x[1], x[2] ** 2]), jnp.array([1.0, 2.0, 3.0]))
    assert J is not None, 'jacobian_fwd returned None: fill in its body (it is still the stub `...`)'
    assert J.shape == (2, 3), f'f: R^3 -> R^2 has a Jacobian of shape (2, 3) (outputs by inputs), got {J.shape}'
    assert J.dtype == jnp.float32, f'expected float32, got {J.dtype}'
    expected = jnp.array([[2.0, 1.0, 0.0], [0.0, 0.0, 6.0]])
    assert jnp.allclose(J, expected), f'expected {expected}, got {J}'

@test_case(points=0, hidden=False)
def test_jacobian_fwd_rules(jacobian_fwd):
    import ast
    import inspect
    import textwrap
    import jax
    import jax.numpy as jnp
    assert jacobian_fwd(lambda x: x ** 2, jnp.ones(2)) is not None, 'jacobian_fwd returned None: fill in its body (it is still the stub `...`)'
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(jacobian_fwd)))
    except (OSError, TypeError, SyntaxError):
        return
    forbidden, env = ({'jacfwd', 'jacrev', 'jacobian', 'hessian'}, getattr(jacobian_fwd, '__globals__', {}))
    used = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in forbidden} | {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.name in forbidden} | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in forbidden and (env.get(n.id) is getattr(jax, n.id))})
    assert not used, f'jacobian_fwd uses jax.{used[0]}; it is the function you are asked to write (use it only to check your answer)'

