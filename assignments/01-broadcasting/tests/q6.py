from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 8

@test_case(points=0, hidden=False)
def test_one_hot_vector(one_hot):
    import jax.numpy as jnp
    out = one_hot(jnp.array([0, 2, 1]), 3)
    assert out is not None, '`one_hot` returned None: fill in its body'
    assert out.shape == (3, 3), f'3 labels and 3 classes should give shape (3, 3), got {out.shape}'
    assert out.dtype == jnp.float32, f'one_hot should return float32, got {out.dtype}: use .astype(jnp.float32)'
    assert jnp.array_equal(out[1], jnp.array([0.0, 0.0, 1.0])), f'label 2 of 3 classes should be [0, 0, 1], got {out[1]}'

@test_case(points=0, hidden=False)
def test_one_hot_leading_shape(one_hot):
    import jax.numpy as jnp
    out = one_hot(jnp.zeros((2, 5), dtype=jnp.int32), 4)
    assert out is not None, '`one_hot` returned None: fill in its body'
    assert out.shape == (2, 5, 4), f'labels (2, 5) with 4 classes should give shape (2, 5, 4), got {out.shape}: use labels[..., None]'

@test_case(points=0, hidden=False)
def test_one_hot_rules(one_hot):
    import ast
    import inspect
    import textwrap
    import types
    import jax.numpy as jnp
    out = one_hot(jnp.array([0, 1]), 3)
    assert out is not None, '`one_hot` returned None: fill in its body'
    package = (getattr(one_hot, '__module__', None) or '').split('.')[0]
    assert package not in {'numpy', 'jax', 'jaxlib', 'scipy'}, f"one_hot is {package}'s own function; write it with `def` in the notebook"
    fn = inspect.unwrap(one_hot)
    env, called = (getattr(fn, '__globals__', {}), getattr(getattr(fn, '__code__', None), 'co_names', ()))
    helpers = [env[n] for n in sorted(called) if isinstance(env.get(n), types.FunctionType) and env[n].__module__ == fn.__module__ and (env[n] is not fn)]
    try:
        text = '\n'.join((textwrap.dedent(inspect.getsource(f)) for f in [fn, *helpers]))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return
    kinds = {ast.For: 'a for loop', ast.While: 'a while loop', ast.ListComp: 'a list comprehension', ast.SetComp: 'a set comprehension', ast.DictComp: 'a dict comprehension', ast.GeneratorExp: 'a generator expression'}
    loops = [kinds[type(node)] for node in ast.walk(tree) if type(node) in kinds]
    assert not loops, f'one_hot uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting'
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.split('.')[-1])
    used = sorted(names & {'one_hot'})
    assert not used, f'one_hot uses `{used[0]}`, which is the answer; compare labels[..., None] with jnp.arange(num_classes)'

