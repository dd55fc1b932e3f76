from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 12

@test_case(points=0, hidden=False)
def test_standardize_columns(standardize):
    import jax.numpy as jnp
    X = jnp.array([[1.0, 10.0], [3.0, 10.0]])
    Z = standardize(X)
    assert Z is not None, '`standardize` returned None: fill in its body'
    assert Z.shape == (2, 2), f'standardize should keep the shape (2, 2), got {Z.shape}'
    assert Z.dtype == jnp.float32, f'expected float32, got {Z.dtype}'
    assert jnp.allclose(Z[:, 0], jnp.array([-1.0, 1.0])), f'column [1, 3] should become [-1, 1], got {Z[:, 0]}'
    assert jnp.allclose(Z[:, 1], 0.0), f'a constant column should become 0 (that is what eps is for), got {Z[:, 1]}'

@test_case(points=0, hidden=False)
def test_standardize_rows(standardize):
    import jax.numpy as jnp
    Z = standardize(jnp.array([[1.0, 3.0], [10.0, 30.0]]), axis=1)
    assert Z is not None, '`standardize` returned None: fill in its body'
    assert Z.shape == (2, 2), f'standardize should keep the shape (2, 2), got {Z.shape}'
    assert jnp.allclose(Z, jnp.array([[-1.0, 1.0], [-1.0, 1.0]])), f'each row should become [-1, 1] with axis=1, got {Z}'

@test_case(points=0, hidden=False)
def test_standardize_rules(standardize):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = standardize(jnp.ones((2, 3)))
    assert out is not None, '`standardize` returned None: fill in its body'
    package = (getattr(standardize, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"standardize is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(standardize)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'standardize uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.split('.')[-1])
    used = sorted(names & {'standardize'})
    assert not used, f'standardize uses `{used[0]}`, which is the answer; take the mean and std along `axis` with keepdims=True'

