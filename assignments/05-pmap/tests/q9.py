from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 10

@test_case(points=0, hidden=False)
def test_global_normalize(global_normalize, jax, np):
    n_dev = jax.local_device_count()
    x = np.arange(1.0, 1.0 + 3 * n_dev, dtype=np.float32).reshape(n_dev, 3)
    out = global_normalize(x)
    assert out is not None, 'global_normalize returned None: fill in its body (and decorate it with jax.pmap)'
    assert out.shape == x.shape, f'global_normalize of a {x.shape} array should keep its shape, got {out.shape}'
    assert out.dtype == np.float32, f'global_normalize should return float32, got {out.dtype}'
    total = float(np.sum(out))
    if n_dev > 1 and np.allclose(np.sum(out, axis=1), 1.0) and (not np.isclose(total, 1.0)):
        raise AssertionError(f"""every row sums to 1 and the whole array to {total:.3f}: divide by the sum over all devices, lax.psum(jnp.sum(x), "i"), not by each device's own sum""")
    assert np.allclose(out, x / x.sum(), rtol=1e-05, atol=1e-07), f'every entry should be divided by the total {x.sum():.0f}; the result sums to {total:.4f}, not 1'

