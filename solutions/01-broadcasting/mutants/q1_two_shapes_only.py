"""Handles exactly two shapes, although the signature takes any number: no shape or one raises
IndexError, and a third is ignored. Fold the rule over every shape, starting from ()."""


def broadcast_shape(*shapes):
    a, b = shapes[0], shapes[1]
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    result = []
    for m, n in zip(a, b):
        if m != n and m != 1 and n != 1:
            raise ValueError(f"shapes {shapes} are incompatible")
        result.append(n if m == 1 else m)
    return tuple(result)
