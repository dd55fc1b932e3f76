"""Runs q5's jitted epoch on the data as it comes, with no sharding: the numbers are right, but the
whole epoch runs on one device. Place x and y with a NamedSharding along the batch axis first."""

# ruff: noqa: F821 - train_epoch: the notebook's own


def train_epoch_sharded(params, opt_state, key, x, y, batch_size, lr):
    return train_epoch(params, opt_state, key, x, y, batch_size, lr)
