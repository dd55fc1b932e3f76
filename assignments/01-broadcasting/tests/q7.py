from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 2

@test_case(points=0, hidden=False)
def test_add_positional_shape_and_value(add_positional):
    import jax.numpy as jnp
    tokens = jnp.zeros((2, 3, 4))
    positions = jnp.arange(12.0).reshape(3, 4)
    out = add_positional(tokens, positions)
    assert out.shape == (2, 3, 4), f'tokens (2, 3, 4) and positions (3, 4) should give (2, 3, 4), got {out.shape}'
    assert out.dtype == jnp.float32, f'expected float32, got {out.dtype}'
    assert jnp.array_equal(out[1], positions), 'every sequence of the batch should get the same positions'

@test_case(points=0, hidden=False)
def test_add_positional_raises(add_positional):
    import jax.numpy as jnp
    try:
        add_positional(jnp.zeros((2, 3, 4)), jnp.zeros((4, 4)))
    except Exception:
        return
    raise AssertionError('positions (4, 4) for tokens (2, 3, 4) have one time step too many; add_positional should raise, not return a result')

