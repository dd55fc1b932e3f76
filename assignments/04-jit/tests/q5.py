from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 6

@test_case(points=0, hidden=False)
def test_scaled_sum_example(scaled_sum):
    import jax.numpy as jnp
    import numpy as np
    out = scaled_sum(jnp.ones(3), 2.0)
    assert out is not None, 'scaled_sum returned None; is the body still `...`?'
    assert jnp.shape(out) == (), f'scaled_sum should return a scalar, got shape {jnp.shape(out)}'
    assert np.isclose(out, 6.0), f'scaled_sum(ones(3), 2.0) should be 6.0, got {out}'
    assert hasattr(scaled_sum, 'lower'), 'scaled_sum should itself be jitted, with alpha traced: see the last line of its cell'

