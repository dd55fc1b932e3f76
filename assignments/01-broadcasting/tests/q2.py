from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 2

@test_case(points=0, hidden=False)
def test_outer_shape_and_value(outer):
    import jax.numpy as jnp
    out = outer(jnp.arange(3.0), jnp.arange(4.0))
    assert out.shape == (3, 4), f'outer of shapes (3,) and (4,) should have shape (3, 4), got {out.shape}'
    assert out.dtype == jnp.float32, f'outer of float32 vectors should be float32, got {out.dtype}'
    assert float(out[2, 3]) == 6.0, f'out[2, 3] should be x[2] * y[3] = 6.0, got {float(out[2, 3])}'

