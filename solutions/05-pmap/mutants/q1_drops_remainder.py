"""Drops the examples that do not fit (x[: N // n * n]) without a word instead of raising ValueError
for an uneven split. Raise when N is not a multiple of n_devices."""


def shard(x, n_devices):
    per_device = x.shape[0] // n_devices
    return x[: per_device * n_devices].reshape(n_devices, per_device, *x.shape[1:])
