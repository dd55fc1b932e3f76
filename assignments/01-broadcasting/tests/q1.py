from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 25

@test_case(points=0, hidden=False)
def test_broadcast_shape_example(broadcast_shape):
    out = broadcast_shape((8, 1, 6, 1), (7, 1, 5))
    assert out is not None, '`broadcast_shape` returned None: fill in its body'
    assert isinstance(out, tuple), f'broadcast_shape should return a tuple, got {type(out).__name__}'
    assert out == (8, 7, 6, 5), f'broadcast_shape((8, 1, 6, 1), (7, 1, 5)) should be (8, 7, 6, 5), got {out}'
    assert broadcast_shape((3,), ()) == (3,), 'a 0-d shape () broadcasts with anything'

@test_case(points=0, hidden=False)
def test_broadcast_shape_raises(broadcast_shape):
    try:
        out = broadcast_shape((3, 4), (3,))
    except ValueError:
        return
    assert out is not None, '`broadcast_shape` returned None: fill in its body'
    raise AssertionError(f'(3, 4) and (3,) are incompatible (4 against 3 on the right); broadcast_shape should raise ValueError, but returned {out}')

@test_case(points=0, hidden=False)
def test_broadcast_shape_rules(broadcast_shape):
    import ast
    import inspect
    import textwrap
    import types
    out = broadcast_shape((2, 1), (3,))
    assert out is not None, '`broadcast_shape` returned None: fill in its body'
    package = (getattr(broadcast_shape, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"broadcast_shape is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(broadcast_shape)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names |= {node.name, node.name.split('.')[-1]}
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
            parts, base = ([node.attr], node.value)
            while isinstance(base, ast.Attribute):
                parts, base = ([base.attr, *parts], base.value)
            if isinstance(base, ast.Name):
                names.add('.'.join([base.id, *parts]))
    modules = {'np', 'numpy', 'jnp', 'jax', 'lax', 'importlib', '__import__'}
    array_helpers = {'broadcast_shapes', 'broadcast_to', 'broadcast_arrays', 'broadcast', 'empty', 'zeros', 'ones', 'full', 'array', 'asarray', 'ndarray'}
    used = sorted(names & modules) + sorted((n for n in names if '.' in n and n.rsplit('.', 1)[1] in array_helpers))
    assert not used, f'broadcast_shape uses `{used[0]}`; question 1 is plain Python, so that you write the rule yourself rather than ask NumPy or JAX'

