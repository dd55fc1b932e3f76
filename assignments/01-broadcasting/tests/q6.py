from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 2

@test_case(points=0, hidden=False)
def test_one_hot_vector(one_hot):
    import jax.numpy as jnp
    out = one_hot(jnp.array([0, 2, 1]), 3)
    assert out.shape == (3, 3), f'3 labels and 3 classes should give shape (3, 3), got {out.shape}'
    assert out.dtype == jnp.float32, f'one_hot should return float32, got {out.dtype}: use .astype(jnp.float32)'
    assert jnp.array_equal(out[1], jnp.array([0.0, 0.0, 1.0])), f'label 2 of 3 classes should be [0, 0, 1], got {out[1]}'

@test_case(points=0, hidden=False)
def test_one_hot_leading_shape(one_hot):
    import jax.numpy as jnp
    out = one_hot(jnp.zeros((2, 5), dtype=jnp.int32), 4)
    assert out.shape == (2, 5, 4), f'labels (2, 5) with 4 classes should give shape (2, 5, 4), got {out.shape}: use labels[..., None]'

