from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 8

@test_case(points=0, hidden=False)
def test_set_diagonal_square(set_diagonal):
    import jax.numpy as jnp
    M = jnp.zeros((3, 3))
    out = set_diagonal(M, jnp.array([1.0, 2.0, 3.0]))
    assert out is not None, '`set_diagonal` returned None: fill in its body'
    assert out.shape == (3, 3), f'set_diagonal should keep the shape (3, 3), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.array_equal(out, jnp.diag(jnp.array([1.0, 2.0, 3.0]))), f'expected diag(1, 2, 3), got {out}'
    assert jnp.array_equal(M, jnp.zeros((3, 3))), 'M must be left unchanged'

@test_case(points=0, hidden=False)
def test_set_diagonal_rectangular(set_diagonal):
    import jax.numpy as jnp
    out = set_diagonal(jnp.zeros((2, 4)), 7.0)
    assert out is not None, '`set_diagonal` returned None: fill in its body'
    assert out.shape == (2, 4), f'set_diagonal should keep the shape (2, 4), got {out.shape}'
    assert float(out.sum()) == 14.0 and float(out[1, 1]) == 7.0, f'a (2, 4) matrix has 2 diagonal entries to set, got {out}'

@test_case(points=0, hidden=False)
def test_set_diagonal_rules(set_diagonal):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = set_diagonal(jnp.zeros((2, 2)), 1.0)
    assert out is not None, '`set_diagonal` returned None: fill in its body'
    package = (getattr(set_diagonal, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"set_diagonal is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(set_diagonal)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'set_diagonal uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.split('.')[-1])
    assert 'at' in names, "set_diagonal does not use `.at[...]`; this question is about JAX's functional updates"
    used = sorted(names & {'fill_diagonal'})
    assert not used, f'set_diagonal uses `{used[0]}`, which is the answer; index the diagonal with `.at[i, i]`'

