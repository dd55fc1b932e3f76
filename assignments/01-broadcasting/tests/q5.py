from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 2

@test_case(points=0, hidden=False)
def test_softmax_rows(softmax):
    import jax.numpy as jnp
    p = softmax(jnp.array([[0.0, 0.0], [0.0, jnp.log(3.0)]]))
    assert p.shape == (2, 2), f'softmax should keep the shape (2, 2), got {p.shape}'
    assert p.dtype == jnp.float32, f'expected float32, got {p.dtype}'
    assert jnp.allclose(p, jnp.array([[0.5, 0.5], [0.25, 0.75]])), f'softmax of rows [0, 0] and [0, log 3] should be [0.5, 0.5] and [0.25, 0.75], got {p}'

@test_case(points=0, hidden=False)
def test_softmax_large_scores(softmax):
    import jax.numpy as jnp
    p = softmax(jnp.array([1000.0, 1000.0]))
    assert jnp.all(jnp.isfinite(p)), f'softmax of [1000, 1000] should be [0.5, 0.5], got {p}: subtract the max first'
    assert jnp.allclose(p, 0.5, rtol=0.0001), f'softmax of [1000, 1000] should be [0.5, 0.5], got {p}'

