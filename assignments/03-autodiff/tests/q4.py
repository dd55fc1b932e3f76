from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 10

@test_case(points=0, hidden=False)
def test_hvp(hvp):
    import jax.numpy as jnp
    x, v = (jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, -1.0, 2.0]))
    out = hvp(lambda x: jnp.sum(x ** 3) / 6, x, v)
    assert out is not None, 'returned None; is the function still the stub `...`?'
    assert out.shape == (3,), f'H @ v has the shape of x, (3,), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.allclose(out, x * v), f'expected {x * v}, got {out}'

