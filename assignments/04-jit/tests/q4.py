from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 4

@test_case(points=0, hidden=False)
def test_scale_follows_factor(scale):
    import jax
    import jax.numpy as jnp
    import numpy as np
    x = jnp.array([1.0, 2.0])
    out = scale(x, 3.0)
    assert out is not None, 'scale returned None; is the body still `...`?'
    assert np.allclose(out, [3.0, 6.0]), f'scale([1, 2], 3.0) should be [3, 6], got {out}'
    jitted = jax.jit(scale)
    first, second = (jitted(x, 2.0), jitted(x, 5.0))
    assert np.allclose(first, [2.0, 4.0]) and np.allclose(second, [5.0, 10.0]), f'jax.jit(scale)([1, 2], 2.0) and (..., 5.0) should be [2, 4] and [5, 10], got {first} and {second}; does scale read a global instead of its factor argument?'

