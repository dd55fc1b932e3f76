from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 16

@test_case(points=0, hidden=False)
def test_sharded_train_step(sharded_train_step, full_batch_step, jax, np):
    x = np.linspace(-1.0, 1.0, 8 * jax.local_device_count(), dtype=np.float32).reshape(-1, 1)
    params = {'w': np.float32(0.0), 'b': np.float32(0.0)}
    out = sharded_train_step(params, x, 2 * x - 1, 0.1)
    assert out is not None, 'sharded_train_step returned None: fill in its body'
    assert isinstance(out, tuple) and len(out) == 2, 'sharded_train_step should return a tuple (new_params, loss)'
    (new_params, loss), (want, want_loss) = (out, full_batch_step(params, x, 2 * x - 1, 0.1))
    assert np.shape(loss) == (), f'loss should be a scalar, got shape {np.shape(loss)}'
    assert np.allclose(loss, want_loss, rtol=1e-05, atol=1e-06), f'loss should be {float(want_loss):.6f}, got {float(loss):.6f}'
    assert np.allclose(new_params['w'], want['w'], rtol=1e-05, atol=1e-06), f"new w should be {float(want['w']):.6f}, got {float(new_params['w']):.6f}"
    used = len(loss.sharding.device_set) if hasattr(loss, 'sharding') else 1
    assert used == jax.device_count(), f'the step ran on {used} device(s), not all {jax.device_count()}: place x and y with a NamedSharding'

