from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 12

@test_case(points=0, hidden=False)
def test_shuffle_batches_shapes(shuffle_batches, jax, jnp):
    X = jnp.stack([jnp.arange(10.0), -jnp.arange(10.0)], axis=1)
    y = jnp.arange(10)
    out = shuffle_batches(jax.random.key(0), X, y, 3)
    assert out is not None, 'shuffle_batches returned None: fill in its body'
    Xb, yb = out
    assert Xb.shape == (3, 3, 2), f'10 examples in batches of 3: Xb should be (3, 3, 2), got {Xb.shape}'
    assert yb.shape == (3, 3), f'10 examples in batches of 3: yb should be (3, 3), got {yb.shape}'
    assert Xb.dtype == X.dtype and yb.dtype == y.dtype, 'shuffle_batches should keep the dtypes'
    assert bool(jnp.all(Xb[..., 0] == yb)), 'each X row should stay with its own y: use one permutation'

