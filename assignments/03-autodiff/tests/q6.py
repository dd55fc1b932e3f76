from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 13

@test_case(points=0, hidden=False)
def test_softplus_values(softplus):
    import jax.numpy as jnp
    out = softplus(jnp.array([-100.0, 0.0, 100.0]))
    assert out is not None, 'softplus returned None: fill in its body (it is still the stub `...`)'
    assert out.shape == (3,) and out.dtype == jnp.float32, f'expected float32 of shape (3,), got {out.dtype} {out.shape}'
    assert jnp.all(jnp.isfinite(out)), f'softplus at -100, 0, 100 must be finite, got {out}'
    assert jnp.allclose(out, jnp.array([0.0, jnp.log(2.0), 100.0])), f'got {out}'

@test_case(points=0, hidden=False)
def test_softplus_derivative(softplus):
    import jax
    import jax.numpy as jnp
    assert isinstance(softplus, jax.custom_jvp), 'decorate softplus with @jax.custom_jvp'
    assert softplus(jnp.float32(1.0)) is not None, 'softplus returned None: fill in its body (it is still the stub `...`)'
    d = jax.vmap(jax.grad(softplus))(jnp.array([-100.0, 0.0, 100.0]))
    assert jnp.all(jnp.isfinite(d)), f'the derivative at -100, 0, 100 must be finite, got {d}'
    assert jnp.allclose(d, jnp.array([0.0, 0.5, 1.0])), f'expected [0. 0.5 1.], got {d}'

