from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 8

@test_case(points=0, hidden=False)
def test_predict_shape_and_value(predict):
    import jax.numpy as jnp
    import numpy as np
    params = [{'W': jnp.full((2, 3), 0.5), 'b': jnp.zeros(3)}, {'W': jnp.ones((3, 1)), 'b': jnp.array([1.0])}]
    x = jnp.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 2.0], [3.0, -3.0]])
    out = predict(params, x)
    assert out is not None, 'predict returned None: is it still the stub `...`?'
    assert out.shape == (4, 1), f'predict on x of shape (4, 2) should give (4, 1), got {out.shape}'
    assert out.dtype == jnp.float32, f'predict should return float32, got {out.dtype}'
    want = 3 * np.tanh(np.array([0.0, 1.0, 0.5, 0.0])) + 1.0
    assert np.allclose(np.asarray(out)[:, 0], want, rtol=1e-05), f'predict: expected {want.round(4).tolist()} (tanh hidden layer, linear output), got {np.asarray(out)[:, 0].round(4).tolist()}'

