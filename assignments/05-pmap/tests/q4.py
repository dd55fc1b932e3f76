from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 16

@test_case(points=0, hidden=False)
def test_train_step_equals_full_batch_step(train_step, full_batch_step, jax, np):
    n_dev = jax.local_device_count()
    x = np.linspace(-1.0, 1.0, 8 * n_dev, dtype=np.float32).reshape(n_dev, 8, 1)
    y = 2 * x - 1
    params = {'w': np.zeros(n_dev, np.float32), 'b': np.zeros(n_dev, np.float32)}
    out = train_step(params, x, y, 0.1)
    assert out is not None, 'train_step returned None: fill in its body (and decorate it with jax.pmap)'
    assert isinstance(out, tuple) and len(out) == 2, 'train_step should return a tuple (new_params, loss)'
    new_params, loss = jax.tree.map(np.asarray, out)
    assert loss.shape == (n_dev,), f'loss should have shape ({n_dev},), one copy per device, got {loss.shape}'
    zero = {'w': np.float32(0.0), 'b': np.float32(0.0)}
    want, want_loss = full_batch_step(zero, x.reshape(-1, 1), y.reshape(-1, 1), 0.1)
    assert np.allclose(loss, want_loss, rtol=1e-05, atol=1e-06), f'loss should be the full-batch loss {float(want_loss):.6f} on every device, got {loss}'
    for k in ('w', 'b'):
        assert new_params[k].shape == (n_dev,), f'new_params[{k!r}] should have shape ({n_dev},), got {new_params[k].shape}'
        assert (new_params[k] == new_params[k][0]).all(), f'the copies of {k} differ between devices: average the gradients with lax.pmean'
        assert np.allclose(new_params[k], want[k], rtol=1e-05, atol=1e-06), f'new {k} should be {float(want[k]):.6f}, as after one full-batch step; got {new_params[k]}'

