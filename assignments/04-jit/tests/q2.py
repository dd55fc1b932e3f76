from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 8

@test_case(points=0, hidden=False)
def test_sum_negatives_example(sum_negatives):
    import ast
    import inspect
    import jax
    import jax.numpy as jnp
    import numpy as np
    x = jnp.array([1.0, -2.0, 3.0, -4.0])
    out = sum_negatives(x)
    assert out is not None, 'sum_negatives returned None; is the body still `...`?'
    assert jnp.shape(out) == () and jnp.result_type(out) == jnp.float32, f'sum_negatives should return a float32 scalar, got shape {jnp.shape(out)} dtype {jnp.result_type(out)}'
    assert np.isclose(out, -6.0), f'sum_negatives([1, -2, 3, -4]) should be -6.0, got {out}'
    rule = "sum_negatives indexes with a boolean mask{}: the result's shape depends on the values, so it cannot be jitted; keep the shape with jnp.where"
    try:
        parsed = ast.parse(inspect.getsource(sum_negatives))
    except (OSError, TypeError, SyntaxError):
        parsed = ast.parse('')
    for node in ast.walk(parsed):
        assert not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Compare)), rule.format(f' (`{ast.unparse(node)}`)')
    try:
        jitted = jax.jit(sum_negatives)(x)
    except jax.errors.NonConcreteBooleanIndexError:
        raise AssertionError(rule.format('')) from None
    assert np.isclose(jitted, -6.0), f'jax.jit(sum_negatives)([1, -2, 3, -4]) should be -6.0, got {jitted}'

