"""Aligns the shapes on the left (pads the shorter one with 1s on the right), where broadcasting aligns
them on the right. Pad the shorter shapes with 1s on the left, then compare axis by axis."""


def broadcast_shape(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    aligned = [tuple(s) + (1,) * (ndim - len(s)) for s in shapes]
    result = []
    for sizes in zip(*aligned):
        stretched = {n for n in sizes if n != 1}
        if len(stretched) > 1:
            raise ValueError(f"shapes {shapes} are incompatible")
        result.append(stretched.pop() if stretched else 1)
    return tuple(result)
