from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 2

@test_case(points=0, hidden=False)
def test_broadcast_shape_example(broadcast_shape):
    out = broadcast_shape((8, 1, 6, 1), (7, 1, 5))
    assert isinstance(out, tuple), f'broadcast_shape should return a tuple, got {type(out).__name__}'
    assert out == (8, 7, 6, 5), f'broadcast_shape((8, 1, 6, 1), (7, 1, 5)) should be (8, 7, 6, 5), got {out}'
    assert broadcast_shape((3,), ()) == (3,), 'a 0-d shape () broadcasts with anything'

@test_case(points=0, hidden=False)
def test_broadcast_shape_raises(broadcast_shape):
    try:
        out = broadcast_shape((3, 4), (3,))
    except ValueError:
        return
    raise AssertionError(f'(3, 4) and (3,) are incompatible (4 against 3 on the right); broadcast_shape should raise ValueError, but returned {out}')

