from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 6

@test_case(points=0, hidden=False)
def test_checked_log_example(checked_log):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import checkify
    result = checked_log(jnp.array([1.0, np.e]))
    assert isinstance(result, tuple) and len(result) == 2, 'checked_log should return (err, y): checkify it on the last line of its cell'
    err, y = result
    assert np.allclose(y, [0.0, 1.0]), f'checked_log([1, e]) should give y = [0, 1], got {y}'
    err.throw()
    err, _ = jax.jit(checked_log)(jnp.array([1.0, -1.0]))
    try:
        err.throw()
    except checkify.JaxRuntimeError:
        return
    raise AssertionError('err.throw() should raise for x = [1, -1] (under jax.jit too)')

