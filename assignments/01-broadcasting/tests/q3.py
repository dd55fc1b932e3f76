from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 15

@test_case(points=0, hidden=False)
def test_pairwise_sq_dists_shape_and_value(pairwise_sq_dists):
    import jax.numpy as jnp
    X = jnp.array([[0.0, 0.0], [1.0, 1.0], [3.0, 4.0]])
    Y = jnp.array([[0.0, 0.0], [1.0, 0.0]])
    D = pairwise_sq_dists(X, Y)
    assert D is not None, '`pairwise_sq_dists` returned None: fill in its body'
    assert D.shape == (3, 2), f'X (3, 2) and Y (2, 2) should give shape (3, 2), got {D.shape}'
    assert D.dtype == jnp.float32, f'expected float32, got {D.dtype}'
    assert float(D[2, 0]) == 25.0, f'D[2, 0] is |(3, 4) - (0, 0)|^2 = 25, got {float(D[2, 0])}'

@test_case(points=0, hidden=False)
def test_pairwise_sq_dists_rules(pairwise_sq_dists):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = pairwise_sq_dists(jnp.ones((2, 3)), jnp.ones((4, 3)))
    assert out is not None, '`pairwise_sq_dists` returned None: fill in its body'
    package = (getattr(pairwise_sq_dists, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"pairwise_sq_dists is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(pairwise_sq_dists)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'pairwise_sq_dists uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'

