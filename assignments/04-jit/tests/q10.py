from otter.test_files import test_case

OK_FORMAT = False

name = "q10"
points = 12

@test_case(points=0, hidden=False)
def test_rnn_example(rnn):
    import jax
    import jax.numpy as jnp
    import numpy as np
    params = {'Wx': jnp.zeros((2, 3)), 'Wh': jnp.zeros((3, 3)), 'b': jnp.array([0.5, 0.0, -1.0])}
    result = rnn(params, jnp.ones((4, 2)), jnp.ones(3))
    assert result is not None, 'rnn returned None; is the body still `...`?'
    h_last, hs = result
    assert jnp.shape(hs) == (4, 3) and jnp.shape(h_last) == (3,), f'for T = 4 and h = 3, hs should have shape (4, 3) and h_last (3,); got {jnp.shape(hs)} and {jnp.shape(h_last)}'
    assert jnp.result_type(hs) == jnp.float32, f'hs should be float32, got {jnp.result_type(hs)}'
    assert np.allclose(hs, np.tanh([0.5, 0.0, -1.0])), f'with zero weights, every state h_1 ... h_T is tanh(b) = [0.4621, 0, -0.7616]; got hs = {hs}'
    assert np.array_equal(hs[-1], h_last), 'h_last should equal hs[-1], the last state h_T'

    def size(T):
        jaxpr = jax.make_jaxpr(lambda xs: rnn(params, xs, jnp.zeros(3)))(jnp.ones((T, 2)))
        return (len(jaxpr.eqns), str(jaxpr))
    (ops_4, printed), (ops_16, _) = (size(4), size(16))
    assert ops_4 == ops_16, f'the jaxpr of rnn grows with the sequence length ({ops_4} operations for T = 4, {ops_16} for T = 16): the loop is unrolled; use lax.scan'
    assert 'scan[' in printed, 'the jaxpr of rnn holds no scan: use lax.scan for the loop over time'

