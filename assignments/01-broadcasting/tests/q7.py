from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 9

@test_case(points=0, hidden=False)
def test_add_positional_shape_and_value(add_positional):
    import jax.numpy as jnp
    tokens = jnp.zeros((2, 3, 4))
    positions = jnp.arange(12.0).reshape(3, 4)
    out = add_positional(tokens, positions)
    assert out is not None, '`add_positional` returned None: fill in its body'
    assert out.shape == (2, 3, 4), f'tokens (2, 3, 4) and positions (3, 4) should give (2, 3, 4), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.array_equal(out[1], positions), 'every sequence of the batch should get the same positions'

@test_case(points=0, hidden=False)
def test_add_positional_raises(add_positional):
    import jax.numpy as jnp
    try:
        out = add_positional(jnp.zeros((2, 3, 4)), jnp.zeros((4, 4)))
    except Exception:
        return
    assert out is not None, '`add_positional` returned None: fill in its body'
    raise AssertionError('positions (4, 4) for tokens (2, 3, 4) have one time step too many; add_positional should raise, not return a result')

@test_case(points=0, hidden=False)
def test_add_positional_rules(add_positional):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = add_positional(jnp.zeros((2, 3, 4)), jnp.zeros((3, 4)))
    assert out is not None, '`add_positional` returned None: fill in its body'
    package = (getattr(add_positional, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"add_positional is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(add_positional)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'add_positional uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'

