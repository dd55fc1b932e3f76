"""reshape(n_devices, -1): merges each device's examples with the trailing axes, so (N, d) becomes
(n, N // n * d) instead of (n, N // n, d)."""


def shard(x, n_devices):
    if x.shape[0] % n_devices:
        raise ValueError("uneven split")
    return x.reshape(n_devices, -1)
