from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 8

@test_case(points=0, hidden=False)
def test_init_params_shapes(init_params):
    import jax
    import jax.numpy as jnp
    params = init_params(jax.random.key(0), [1, 32, 32, 1])
    assert params is not None, 'init_params returned None: is it still the stub `...`?'
    assert len(params) == 3, f'init_params: sizes [1, 32, 32, 1] make 3 layers, got {len(params)}'
    for i, (shape_W, shape_b) in enumerate([((1, 32), (32,)), ((32, 32), (32,)), ((32, 1), (1,))]):
        W, b = (params[i]['W'], params[i]['b'])
        assert W.shape == shape_W, f"init_params: layer {i}'s W should have shape {shape_W}, got {W.shape}"
        assert b.shape == shape_b, f"init_params: layer {i}'s b should have shape {shape_b}, got {b.shape}"
        assert W.dtype == jnp.float32 and b.dtype == jnp.float32, f'init_params: layer {i} should be float32'
        assert bool(jnp.all(b == 0)), f"init_params: layer {i}'s b should start at zero"
    assert not bool(jnp.array_equal(params[1]['W'], params[1]['W'].T)), 'init_params: W should be random'

