from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 14

@test_case(points=0, hidden=False)
def test_train_shapes_and_progress(train, jax, np):
    x = np.linspace(-1.0, 1.0, 16 * jax.local_device_count(), dtype=np.float32).reshape(-1, 1)
    out = train(jax.random.key(0), x, 2 * x - 1, 20, 0.3)
    assert out is not None, 'train returned None: fill in its body'
    assert isinstance(out, tuple) and len(out) == 2, 'train should return a tuple (params, losses)'
    params, losses = jax.tree.map(np.asarray, out)
    assert params['w'].shape == (), f"train should return un-replicated params: w of shape (), got {params['w'].shape}"
    assert losses.shape == (20,), f'losses for 20 steps should have shape (20,), got {losses.shape}'
    assert losses[-1] < losses[0], f'the loss should fall during training, went from {losses[0]:.4f} to {losses[-1]:.4f}'

