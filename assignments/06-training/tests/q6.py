from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 14

@test_case(points=0, hidden=False)
def test_fit_runs_and_repeats(fit):
    import jax
    import jax.numpy as jnp
    import numpy as np
    out = fit(jax.random.key(0), 3, 48, 0.01, [1, 32, 32, 1])
    assert out is not None, 'fit returned None: is it still the stub `...`?'
    assert isinstance(out, tuple) and len(out) == 2, 'fit should return a tuple (params, losses)'
    params, losses = out
    assert jnp.shape(losses) == (3,) and losses.dtype == jnp.float32, f'fit: 3 epochs should give float32 losses of shape (3,), got {losses.dtype}{list(jnp.shape(losses))}'
    assert float(losses[-1]) < float(losses[0]), 'fit: the loss should fall from epoch 0 to epoch 2'
    params_again, _ = fit(jax.random.key(0), 3, 48, 0.01, [1, 32, 32, 1])
    same = all((np.array_equal(a, b) for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(params_again))))
    assert same, 'fit: two runs with the same key should give bit-identical params'

