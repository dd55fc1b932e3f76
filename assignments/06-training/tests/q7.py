from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 16

@test_case(points=0, hidden=False)
def test_train_epoch_sharded(train_epoch_sharded, train_epoch):
    import jax
    import jax.numpy as jnp
    import numpy as np
    n_dev = jax.device_count()
    batch_size = 8 * n_dev
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.uniform(-np.pi, np.pi, (16 * batch_size, 1)), jnp.float32)
    y = jnp.sin(x)
    sizes = [1, 32, 32, 1]
    params = [{'W': jnp.asarray(rng.normal(size=(m, n)) / np.sqrt(m), jnp.float32), 'b': jnp.zeros(n, jnp.float32)} for m, n in zip(sizes[:-1], sizes[1:])]
    zeros = jax.tree.map(jnp.zeros_like, params)
    state = {'m': zeros, 'v': zeros, 't': jnp.int32(0)}
    out = train_epoch_sharded(params, state, jax.random.key(0), x, y, batch_size, 0.01)
    assert out is not None, 'train_epoch_sharded returned None: is it still the stub `...`?'
    assert isinstance(out, tuple) and len(out) == 3, 'train_epoch_sharded should return a tuple (params, opt_state, mean_loss)'
    want = train_epoch(params, state, jax.random.key(0), x, y, batch_size, 0.01)
    for got, ref in zip(jax.tree.leaves(out), jax.tree.leaves(want)):
        assert np.allclose(got, ref, rtol=0.0001, atol=1e-05), "train_epoch_sharded should give train_epoch's numbers (rtol 1e-4)"
    used = len(out[2].sharding.device_set) if hasattr(out[2], 'sharding') else 1
    assert used == n_dev, f'train_epoch_sharded ran on {used} device(s), not all {n_dev}: place x and y with a NamedSharding'

