from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 8

@test_case(points=0, hidden=False)
def test_outer_shape_and_value(outer):
    import jax.numpy as jnp
    out = outer(jnp.arange(3.0), jnp.arange(4.0))
    assert out is not None, '`outer` returned None: fill in its body'
    assert out.shape == (3, 4), f'outer of shapes (3,) and (4,) should have shape (3, 4), got {out.shape}'
    assert out.dtype == jnp.float32, f'outer of float32 vectors should be float32, got {out.dtype}'
    assert float(out[2, 3]) == 6.0, f'out[2, 3] should be x[2] * y[3] = 6.0, got {float(out[2, 3])}'

@test_case(points=0, hidden=False)
def test_outer_rules(outer):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = outer(jnp.ones(2), jnp.ones(3))
    assert out is not None, '`outer` returned None: fill in its body'
    package = (getattr(outer, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"outer is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(outer)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'outer uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.split('.')[-1])
    used = sorted(names & {'outer', 'einsum', 'tensordot', 'kron'})
    assert not used, f'outer uses `{used[0]}`, which builds the grid for you; build it by broadcasting x[:, None] against y[None, :]'

