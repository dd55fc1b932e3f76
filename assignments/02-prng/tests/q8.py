from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 10

@test_case(points=0, hidden=False)
def test_batched_normal(batched_normal, jax, np):
    key = jax.random.key(0)
    out = batched_normal(key, 4, (2, 3))
    assert out is not None, 'batched_normal returned None: fill in its body'
    assert out.shape == (4, 2, 3), f'batched_normal(key, 4, (2, 3)) should have shape (4, 2, 3), got {out.shape}'
    row0 = jax.random.normal(jax.random.split(key, 4)[0], (2, 3))
    assert np.allclose(out[0], row0, rtol=1e-05, atol=1e-06), 'row 0 should be jax.random.normal(jax.random.split(key, 4)[0], shape)'

