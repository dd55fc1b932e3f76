from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 10

@test_case(points=0, hidden=False)
def test_minimize_example(minimize):
    import jax
    import jax.numpy as jnp
    import numpy as np
    result = minimize(lambda x: 2 * (x - 3.0), jnp.zeros(2), 0.5, 1e-06, 100)
    assert result is not None, 'minimize returned None; is the body still `...`?'
    x, n_steps = result
    assert jnp.shape(x) == (2,), f"x should keep x0's shape (2,), got {jnp.shape(x)}"
    assert jnp.shape(n_steps) == () and jnp.issubdtype(jnp.result_type(n_steps), jnp.integer), f'n_steps should be an integer scalar, got shape {jnp.shape(n_steps)} dtype {jnp.result_type(n_steps)}'
    assert np.allclose(x, 3.0) and int(n_steps) == 1, f'on f(x) = ||x - 3||^2 from 0 with lr = 0.5, one update reaches x = 3 (then the gradient is 0); got x = {x} after {n_steps} updates'
    try:
        jaxpr = jax.make_jaxpr(lambda x0: minimize(lambda x: 2 * (x - 3.0), x0, 0.5, 1e-06, 100))(jnp.zeros(2))
    except jax.errors.ConcretizationTypeError as e:
        raise AssertionError(f'minimize raises {type(e).__name__} when traced (a Python while on a traced value?); use lax.while_loop') from None
    assert 'while[' in str(jaxpr), 'the jaxpr of minimize holds no while loop: use lax.while_loop, which stops as soon as the gradient is small enough'

