from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 8

@test_case(points=0, hidden=False)
def test_make_dataset_shapes_and_range(make_dataset):
    import jax
    import jax.numpy as jnp
    import numpy as np
    out = make_dataset(jax.random.key(0), 200)
    assert out is not None, 'make_dataset returned None: is it still the stub `...`?'
    assert isinstance(out, tuple) and len(out) == 2, 'make_dataset should return a tuple (x, y)'
    x, y = out
    for name, a in (('x', x), ('y', y)):
        assert a.shape == (200, 1), f'make_dataset(key, 200): {name} should have shape (200, 1), got {a.shape}'
        assert a.dtype == jnp.float32, f'make_dataset: {name} should be float32, got {a.dtype}'
    assert float(x.min()) >= -np.pi and float(x.max()) < np.pi, 'make_dataset: x should lie in [-pi, pi)'
    noise = np.asarray(y - jnp.sin(x))
    assert 0.05 < noise.std() < 0.2, f'make_dataset: y - sin(x) should be noise of std 0.1, got std {noise.std():.3f}'

@test_case(points=0, hidden=False)
def test_make_dataset_same_key_same_data(make_dataset):
    import jax
    import numpy as np
    first, second = (make_dataset(jax.random.key(7), 5), make_dataset(jax.random.key(7), 5))
    assert first is not None, 'make_dataset returned None: is it still the stub `...`?'
    assert all((np.array_equal(a, b) for a, b in zip(first, second))), 'make_dataset: the same key should give the same data'

