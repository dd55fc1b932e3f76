from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 8

@test_case(points=0, hidden=False)
def test_straight_through_round(straight_through_round):
    import jax
    import jax.numpy as jnp
    x = jnp.array([0.4, 1.6, -2.5, 3.5])
    out = straight_through_round(x)
    assert out is not None, 'straight_through_round returned None: fill in its body (it is still the stub `...`)'
    assert out.shape == x.shape and out.dtype == jnp.float32, f'expected float32 of shape {x.shape}, got {out.dtype} {out.shape}'
    assert jnp.array_equal(out, jnp.round(x)), f'expected {jnp.round(x)}, got {out}'
    grad = jax.grad(lambda x: jnp.sum(straight_through_round(x)))(x)
    assert jnp.allclose(grad, 1.0), f'the gradient of the sum should be all ones, got {grad}'

