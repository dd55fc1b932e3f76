from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 2

@test_case(points=0, hidden=False)
def test_flatten_example(flatten):
    import jax
    import jax.numpy as jnp
    import numpy as np
    x = jnp.arange(6.0).reshape(2, 3)
    for name, fn in [('flatten', flatten), ('jax.jit(flatten)', jax.jit(flatten))]:
        out = fn(x)
        assert out is not None, f'{name} returned None; is the body still `...`?'
        assert out.shape == (6,), f'{name} of a (2, 3) array should have shape (6,), got {out.shape}'
        assert out.dtype == x.dtype, f'{name} should keep the dtype {x.dtype}, got {out.dtype}'
        assert np.array_equal(out, np.arange(6.0)), f'{name}([[0, 1, 2], [3, 4, 5]]) should be [0, 1, 2, 3, 4, 5] (row-major), got {out}'

