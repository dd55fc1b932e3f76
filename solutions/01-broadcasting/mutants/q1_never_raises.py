"""Takes the largest size on each axis without checking that the sizes are compatible, so (2,) and (3,)
give (3,) instead of an error. Raise ValueError when two sizes differ and neither is 1."""


def broadcast_shape(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    aligned = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return tuple(max(sizes) for sizes in zip(*aligned))
