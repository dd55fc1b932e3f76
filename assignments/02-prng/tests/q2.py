from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 7

@test_case(points=0, hidden=False)
def test_split_keys_typed(split_keys, jax, np):
    key = jax.random.key(0)
    out = split_keys(key, 3)
    assert out is not None, 'split_keys returned None: fill in its body'
    new_key, subkeys = out
    assert new_key.shape == (), f'new_key should be one typed key of shape (), got shape {new_key.shape}'
    assert subkeys.shape == (3,), f'split_keys(key, 3) should give subkeys of shape (3,), got {subkeys.shape}'
    assert jax.dtypes.issubdtype(subkeys.dtype, jax.dtypes.prng_key), f'for a typed key the subkeys should be typed keys, got dtype {subkeys.dtype}'
    expected = jax.random.key_data(jax.random.split(key, 4))
    assert np.array_equal(jax.random.key_data(new_key), expected[0]), 'new_key should be jax.random.split(key, n + 1)[0]'
    assert np.array_equal(jax.random.key_data(subkeys), expected[1:]), 'subkeys should be jax.random.split(key, n + 1)[1:]'

@test_case(points=0, hidden=False)
def test_split_keys_legacy(split_keys, jax):
    out = split_keys(jax.random.PRNGKey(0), 3)
    assert out is not None, 'split_keys returned None: fill in its body'
    new_key, subkeys = out
    assert new_key.shape == (2,), f'for a legacy PRNGKey new_key should have shape (2,), got {new_key.shape}'
    assert subkeys.shape == (3, 2), f'for a legacy PRNGKey subkeys should have shape (3, 2), got {subkeys.shape}'

