from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 15

@test_case(points=0, hidden=False)
def test_softmax_rows(softmax):
    import jax.numpy as jnp
    p = softmax(jnp.array([[0.0, 0.0], [0.0, jnp.log(3.0)]]))
    assert p is not None, '`softmax` returned None: fill in its body'
    assert p.shape == (2, 2), f'softmax should keep the shape (2, 2), got {p.shape}'
    assert p.dtype == jnp.float32, f'expected float32, got {p.dtype}'
    assert jnp.allclose(p, jnp.array([[0.5, 0.5], [0.25, 0.75]])), f'softmax of rows [0, 0] and [0, log 3] should be [0.5, 0.5] and [0.25, 0.75], got {p}'

@test_case(points=0, hidden=False)
def test_softmax_large_scores(softmax):
    import jax.numpy as jnp
    p = softmax(jnp.array([1000.0, 1000.0]))
    assert p is not None, '`softmax` returned None: fill in its body'
    assert jnp.all(jnp.isfinite(p)), f'softmax of [1000, 1000] should be [0.5, 0.5], got {p}: subtract the max first'
    assert jnp.allclose(p, 0.5, rtol=0.0001), f'softmax of [1000, 1000] should be [0.5, 0.5], got {p}'

@test_case(points=0, hidden=False)
def test_softmax_rules(softmax):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = softmax(jnp.ones((2, 3)))
    assert out is not None, '`softmax` returned None: fill in its body'
    package = (getattr(softmax, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"softmax is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(softmax)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'softmax uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.split('.')[-1])
    used = sorted(names & {'softmax', 'log_softmax'})
    assert not used, f'softmax uses `{used[0]}`, which is the answer; subtract the max, exponentiate and normalise yourself'

