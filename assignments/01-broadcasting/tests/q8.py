from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 2

@test_case(points=0, hidden=False)
def test_set_diagonal_square(set_diagonal):
    import jax.numpy as jnp
    M = jnp.zeros((3, 3))
    out = set_diagonal(M, jnp.array([1.0, 2.0, 3.0]))
    assert out.shape == (3, 3), f'set_diagonal should keep the shape (3, 3), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.array_equal(out, jnp.diag(jnp.array([1.0, 2.0, 3.0]))), f'expected diag(1, 2, 3), got {out}'
    assert jnp.array_equal(M, jnp.zeros((3, 3))), 'M must be left unchanged'

@test_case(points=0, hidden=False)
def test_set_diagonal_rectangular(set_diagonal):
    import jax.numpy as jnp
    out = set_diagonal(jnp.zeros((2, 4)), 7.0)
    assert out.shape == (2, 4), f'set_diagonal should keep the shape (2, 4), got {out.shape}'
    assert float(out.sum()) == 14.0 and float(out[1, 1]) == 7.0, f'a (2, 4) matrix has 2 diagonal entries to set, got {out}'

