from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 5

@test_case(points=0, hidden=False)
def test_step_key(step_key, jax, np):
    key = jax.random.key(0)
    k3 = step_key(key, 3)
    assert k3 is not None, 'step_key returned None: fill in its body'
    assert k3.shape == () and jax.dtypes.issubdtype(k3.dtype, jax.dtypes.prng_key), f'step_key of a typed key should be one typed key, got shape {k3.shape}, dtype {k3.dtype}'
    assert np.array_equal(jax.random.key_data(k3), jax.random.key_data(step_key(key, 3))), 'step_key(key, 3) should give the same key every time'
    assert not np.array_equal(jax.random.key_data(k3), jax.random.key_data(step_key(key, 4))), 'steps 3 and 4 should get different keys'

