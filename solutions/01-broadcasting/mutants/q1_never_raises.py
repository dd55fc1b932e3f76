"""Takes the largest size on each axis without checking that the sizes are compatible."""


def broadcast_shape(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    aligned = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return tuple(max(sizes) for sizes in zip(*aligned))
