from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 6

@test_case(points=0, hidden=False)
def test_mse_loss_values(mse_loss, jnp, np):
    x = jnp.array([[0.0], [1.0], [2.0]])
    perfect = mse_loss({'w': jnp.float32(2.0), 'b': jnp.float32(-1.0)}, x, 2 * x - 1)
    assert perfect is not None, 'mse_loss returned None: is it still the stub `...`?'
    assert jnp.shape(perfect) == (), f'mse_loss should return a scalar, got shape {jnp.shape(perfect)}'
    assert np.isclose(perfect, 0.0), f'a perfect fit should have loss 0, got {perfect}'
    loss = mse_loss({'w': jnp.float32(0.0), 'b': jnp.float32(0.0)}, x, 2 * x - 1)
    assert np.isclose(loss, (1 + 1 + 9) / 3), f'w=0, b=0 on y = [-1, 1, 3] should give (1 + 1 + 9) / 3, got {loss}'

