"""Deals the examples out like cards (a reshape to (N // n, n) and a transpose): device i gets x[i::n],
not a contiguous block. Reshape to (n, N // n, ...) directly."""


def shard(x, n_devices):
    n = x.shape[0]
    if n % n_devices:
        raise ValueError(f"cannot split {n} examples evenly over {n_devices} devices")
    return x.reshape(n // n_devices, n_devices, *x.shape[1:]).swapaxes(0, 1)
