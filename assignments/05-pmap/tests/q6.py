from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 16

@test_case(points=0, hidden=False)
def test_clipped_train_step(clipped_train_step, full_batch_step, jax, np):
    n_dev = jax.local_device_count()
    x = np.linspace(-1.0, 1.0, 8 * n_dev, dtype=np.float32).reshape(n_dev, 8, 1)
    y = 2 * x - 1
    params = {'w': np.zeros(n_dev, np.float32), 'b': np.zeros(n_dev, np.float32)}
    out = clipped_train_step(params, x, y, 0.1, 1000000.0)
    assert out is not None, 'clipped_train_step returned None: fill in its body (and decorate it with jax.pmap)'
    assert isinstance(out, tuple) and len(out) == 2, 'clipped_train_step should return a tuple (new_params, loss)'
    zero = {'w': np.float32(0.0), 'b': np.float32(0.0)}
    want, _ = full_batch_step(zero, x.reshape(-1, 1), y.reshape(-1, 1), 0.1)
    assert np.allclose(out[0]['w'], want['w'], rtol=1e-05, atol=1e-06), "with a huge max_norm nothing is clipped: the step should equal train_step's"
    new_params, _ = clipped_train_step(params, x, y, 0.1, 0.01)
    moved = np.hypot(np.asarray(new_params['w']), np.asarray(new_params['b']))
    assert np.allclose(moved, 0.1 * 0.01, rtol=0.0001), f'from w = b = 0, a step clipped to max_norm 0.01 with lr 0.1 should move by 0.001, got {moved}'

