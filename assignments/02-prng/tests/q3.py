from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 16

@test_case(points=0, hidden=False)
def test_init_mlp_shapes(init_mlp, jax, jnp):
    params = init_mlp(jax.random.key(0), [3, 5, 2])
    assert params is not None, 'init_mlp returned None: fill in its body'
    assert len(params) == 2, f'sizes [3, 5, 2] make 2 layers, got {len(params)}'
    for i, (shape_W, shape_b) in enumerate([((3, 5), (5,)), ((5, 2), (2,))]):
        W, b = (params[i]['W'], params[i]['b'])
        assert W.shape == shape_W, f'layer {i}: W should have shape {shape_W}, got {W.shape}'
        assert b.shape == shape_b, f'layer {i}: b should have shape {shape_b}, got {b.shape}'
        assert W.dtype == jnp.float32 and b.dtype == jnp.float32, f'layer {i}: W and b should be float32'
        assert bool(jnp.all(b == 0)), f'layer {i}: b should start at zero'
        assert bool(jnp.any(W != 0)), f'layer {i}: W should be random, not zero'

@test_case(points=0, hidden=False)
def test_init_mlp_layers_differ(init_mlp, jax, jnp):
    params = init_mlp(jax.random.key(0), [4, 4, 4])
    assert params is not None, 'init_mlp returned None: fill in its body'
    assert not bool(jnp.array_equal(params[0]['W'], params[1]['W'])), 'two layers of shape (4, 4) got identical W: give each layer its own key'

