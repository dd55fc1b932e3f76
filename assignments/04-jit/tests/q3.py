from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 6

@test_case(points=0, hidden=False)
def test_flatten_example(flatten):
    import ast
    import inspect
    import jax
    import jax.numpy as jnp
    import numpy as np
    x = jnp.arange(6.0).reshape(2, 3)
    out = flatten(x)
    assert out is not None, 'flatten returned None; is the body still `...`?'
    try:
        parsed = ast.parse(inspect.getsource(flatten))
    except (OSError, TypeError, SyntaxError):
        parsed = ast.parse('')
    for node in ast.walk(parsed):
        assert not (isinstance(node, ast.Attribute) and node.attr == 'prod' and isinstance(node.value, ast.Name) and (node.value.id == 'jnp')), 'flatten computes a size with jnp.prod: under jit that is a tracer, and reshape needs a concrete size; do the shape arithmetic in Python (math.prod(x.shape), x.size)'
    for name, fn in [('flatten', flatten), ('jax.jit(flatten)', jax.jit(flatten))]:
        out = fn(x)
        assert out.shape == (6,), f'{name} of a (2, 3) array should have shape (6,), got {out.shape}'
        assert out.dtype == x.dtype, f'{name} should keep the dtype {x.dtype}, got {out.dtype}'
        assert np.array_equal(out, np.arange(6.0)), f'{name}([[0, 1, 2], [3, 4, 5]]) should be [0, 1, 2, 3, 4, 5] (row-major), got {out}'

