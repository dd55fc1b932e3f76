from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 9

@test_case(points=0, hidden=False)
def test_jacobian_fwd(jacobian_fwd):
    import jax.numpy as jnp
    J = jacobian_fwd(lambda x: jnp.stack([x[0] * x[1], x[2] ** 2]), jnp.array([1.0, 2.0, 3.0]))
    assert J is not None, 'returned None; is the function still the stub `...`?'
    assert J.shape == (2, 3), f'f: R^3 -> R^2 has a Jacobian of shape (2, 3) (outputs by inputs), got {J.shape}'
    assert J.dtype == jnp.float32, f'expected float32, got {J.dtype}'
    expected = jnp.array([[2.0, 1.0, 0.0], [0.0, 0.0, 6.0]])
    assert jnp.allclose(J, expected), f'expected {expected}, got {J}'

