from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 8

@test_case(points=0, hidden=False)
def test_shard_contiguous_blocks(shard, jnp, np):
    x = jnp.arange(12.0).reshape(6, 2)
    out = shard(x, 3)
    assert out is not None, 'shard returned None: is it still the stub `...`?'
    assert out.shape == (3, 2, 2), f'shard of a (6, 2) array over 3 devices should have shape (3, 2, 2), got {out.shape}'
    assert out.dtype == x.dtype, f'shard should keep the dtype {x.dtype}, got {out.dtype}'
    assert np.array_equal(out[1], x[2:4]), f'device 1 should get rows 2 and 3 (contiguous blocks), got {np.asarray(out[1]).tolist()}'

@test_case(points=0, hidden=False)
def test_shard_uneven_raises(shard, jnp):
    try:
        shard(jnp.zeros((5, 1)), 2)
    except ValueError:
        return
    raise AssertionError('shard of 5 examples over 2 devices should raise ValueError')

