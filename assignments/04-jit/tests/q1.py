from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 8

@test_case(points=0, hidden=False)
def test_activation_values(activation):
    import jax.numpy as jnp
    import numpy as np
    x = jnp.array([-2.0, 0.0, 3.0])
    expected = {'relu': [0.0, 0.0, 3.0], 'tanh': np.tanh([-2.0, 0.0, 3.0]), 'identity': [-2.0, 0.0, 3.0]}
    for kind, want in expected.items():
        out = activation(x, kind)
        assert out is not None, f'activation(x, {kind!r}) returned None; is the body still `...`?'
        assert out.shape == (3,) and out.dtype == jnp.float32, f"activation(x, {kind!r}) should keep x's shape (3,) and dtype float32, got {out.shape} {out.dtype}"
        assert np.allclose(out, want, atol=1e-06), f'activation([-2, 0, 3], {kind!r}) should be {np.round(want, 4)}, got {out}'

@test_case(points=0, hidden=False)
def test_activation_is_jitted(activation):
    assert hasattr(activation, 'lower'), 'activation should itself be jitted, with kind static: see the last line of its cell'

