from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 8

@test_case(points=0, hidden=False)
def test_newton_sqrt_example(newton_sqrt):
    import jax
    import jax.numpy as jnp
    import numpy as np
    out = newton_sqrt(jnp.float32(2.0), 20)
    assert out is not None, 'newton_sqrt returned None; is the body still `...`?'
    assert jnp.shape(out) == (), f'newton_sqrt should return a scalar, got shape {jnp.shape(out)}'
    assert np.isclose(out, np.sqrt(2.0)), f'newton_sqrt(2.0, 20) should be close to 1.41421, got {out}'
    assert np.isclose(newton_sqrt(jnp.float32(2.0), 0), 2.0), '0 steps should return a itself (x0 = a)'
    assert np.isclose(newton_sqrt(jnp.float32(2.0), 1), 1.5), 'one step from x0 = 2 gives (2 + 2 / 2) / 2 = 1.5'
    try:
        traced = jax.jit(newton_sqrt)(jnp.float32(2.0), 20)
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError) as e:
        raise AssertionError(f'newton_sqrt raises {type(e).__name__} when iters is traced: the loop needs iters as a concrete number (a Python loop, or an array of length iters); use lax.fori_loop, whose bounds may be traced') from None
    assert np.isclose(traced, np.sqrt(2.0)), f'jax.jit(newton_sqrt)(2.0, 20), iters traced, gave {traced}'

