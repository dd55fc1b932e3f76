from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 8

@test_case(points=0, hidden=False)
def test_estimate_pi(estimate_pi, jax, jnp, math):
    est = estimate_pi(jax.random.key(0), 10000)
    assert est is not None, 'estimate_pi returned None: fill in its body'
    assert est.shape == () and est.dtype == jnp.float32, f'estimate_pi should return a float32 scalar, got shape {est.shape}, dtype {est.dtype}'
    assert abs(float(est) - math.pi) < 0.1, f'with n = 10_000 the estimate should be within 0.1 of pi, got {float(est)}'

