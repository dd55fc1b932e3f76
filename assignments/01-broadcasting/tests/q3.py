from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 2

@test_case(points=0, hidden=False)
def test_pairwise_sq_dists_shape_and_value(pairwise_sq_dists):
    import jax.numpy as jnp
    X = jnp.array([[0.0, 0.0], [1.0, 1.0], [3.0, 4.0]])
    Y = jnp.array([[0.0, 0.0], [1.0, 0.0]])
    D = pairwise_sq_dists(X, Y)
    assert D.shape == (3, 2), f'X (3, 2) and Y (2, 2) should give shape (3, 2), got {D.shape}'
    assert D.dtype == jnp.float32, f'expected float32, got {D.dtype}'
    assert float(D[2, 0]) == 25.0, f'D[2, 0] is |(3, 4) - (0, 0)|^2 = 25, got {float(D[2, 0])}'

