from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 15

@test_case(points=0, hidden=False)
def test_mlp_vjp(mlp_vjp):
    import jax
    import jax.numpy as jnp
    params = [{'W': jnp.sin(jnp.arange(12.0)).reshape(3, 4), 'b': jnp.full(4, 0.1)}, {'W': jnp.cos(jnp.arange(8.0)).reshape(4, 2), 'b': jnp.full(2, -0.1)}]
    x, ct = (jnp.array([0.5, -1.0, 2.0]), jnp.array([1.0, -0.5]))
    out = mlp_vjp(params, x, ct)
    assert out is not None, 'mlp_vjp returned None: fill in its body (it is still the stub `...`)'
    assert out.shape == (3,), f"the cotangent of x has x's shape (3,), got {out.shape}"
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'

    def mlp(x):
        return jnp.tanh(x @ params[0]['W'] + params[0]['b']) @ params[1]['W'] + params[1]['b']
    expected = jax.vjp(mlp, x)[1](ct)[0]
    assert jnp.allclose(out, expected, rtol=1e-05, atol=1e-05), f'expected {expected}, got {out}'

@test_case(points=0, hidden=False)
def test_mlp_vjp_rules(mlp_vjp):
    import ast
    import inspect
    import textwrap
    import jax
    import jax.numpy as jnp
    assert mlp_vjp([{'W': jnp.ones((2, 3)), 'b': jnp.ones(3)}, {'W': jnp.ones((3, 1)), 'b': jnp.ones(1)}], jnp.ones(2), jnp.ones(1)) is not None, 'mlp_vjp returned None: fill in its body (it is still the stub `...`)'
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(mlp_vjp)))
    except (OSError, TypeError, SyntaxError):
        return
    forbidden, env = ({'jacfwd', 'jacrev', 'jacobian', 'hessian', 'grad', 'value_and_grad', 'vjp', 'jvp', 'linearize', 'linear_transpose'}, getattr(mlp_vjp, '__globals__', {}))
    used = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in forbidden} | {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.name in forbidden} | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in forbidden and (env.get(n.id) is getattr(jax, n.id))})
    assert not used, f'mlp_vjp uses jax.{used[0]}; write the backward pass yourself from the vjp rules of @, + and tanh'

