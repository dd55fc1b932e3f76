from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 11

@test_case(points=0, hidden=False)
def test_noisy_copies(noisy_copies, jax, jnp, np):
    keys = jax.random.split(jax.random.key(0), 4)
    x = jnp.arange(3.0)
    out = noisy_copies(keys, x, 0.5)
    assert out is not None, 'noisy_copies returned None: fill in its body'
    assert out.shape == (4, 3), f'4 keys and x of shape (3,) should give shape (4, 3), got {out.shape}'
    assert out.dtype == jnp.float32, f'noisy_copies should return float32, got {out.dtype}'
    row1 = x + 0.5 * jax.random.normal(keys[1], (3,))
    assert np.allclose(out[1], row1, rtol=1e-05, atol=1e-06), 'row 1 should be x + sigma * jax.random.normal(keys[1], x.shape)'

@test_case(points=0, hidden=False)
def test_noisy_copies_legacy_scalar(noisy_copies, jax, jnp):
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    out = noisy_copies(keys, jnp.float32(1.0), 0.1)
    assert out is not None, 'noisy_copies returned None: fill in its body'
    assert out.shape == (3,), f'3 legacy keys and a 0-d x should give shape (3,), got {out.shape}'
    assert len(set(out.tolist())) == 3, 'every copy should get its own noise, from its own key'

