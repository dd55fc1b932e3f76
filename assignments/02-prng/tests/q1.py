from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 18

@test_case(points=0, hidden=False)
def test_lcg_small(lcg, np):
    out = lcg(0, 3, a=3, c=1, m=16)
    assert out is not None, 'lcg returned None: fill in its body'
    new_state, samples = out
    assert list(np.asarray(samples)) == [1, 4, 13], f'lcg(0, 3, a=3, c=1, m=16) should give samples [1, 4, 13] (x1, x2, x3), got {samples}'
    assert new_state == 13, f'new_state should be x3 = 13, the last sample; got {new_state}'

@test_case(points=0, hidden=False)
def test_lcg_shape_dtype(lcg, np):
    out = lcg(12345, 5)
    assert out is not None, 'lcg returned None: fill in its body'
    new_state, samples = out
    samples = np.asarray(samples)
    assert samples.shape == (5,), f'lcg(12345, 5) should give 5 samples, got shape {samples.shape}'
    assert samples.dtype == np.uint32, f'samples should be uint32 when m <= 2**32, got {samples.dtype}'
    assert isinstance(new_state, int), f'new_state should be a Python int, got {type(new_state).__name__}'

