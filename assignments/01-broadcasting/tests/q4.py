from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 2

@test_case(points=0, hidden=False)
def test_standardize_columns(standardize):
    import jax.numpy as jnp
    X = jnp.array([[1.0, 10.0], [3.0, 10.0]])
    Z = standardize(X)
    assert Z.shape == (2, 2), f'standardize should keep the shape (2, 2), got {Z.shape}'
    assert Z.dtype == jnp.float32, f'expected float32, got {Z.dtype}'
    assert jnp.allclose(Z[:, 0], jnp.array([-1.0, 1.0])), f'column [1, 3] should become [-1, 1], got {Z[:, 0]}'
    assert jnp.allclose(Z[:, 1], 0.0), f'a constant column should become 0 (that is what eps is for), got {Z[:, 1]}'

@test_case(points=0, hidden=False)
def test_standardize_rows(standardize):
    import jax.numpy as jnp
    Z = standardize(jnp.array([[1.0, 3.0], [10.0, 30.0]]), axis=1)
    assert Z.shape == (2, 2), f'standardize should keep the shape (2, 2), got {Z.shape}'
    assert jnp.allclose(Z, jnp.array([[-1.0, 1.0], [-1.0, 1.0]])), f'each row should become [-1, 1] with axis=1, got {Z}'

