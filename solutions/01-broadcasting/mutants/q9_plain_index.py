"""Indexes with x[idx] as in NumPy, expecting an error or a fill: JAX clamps an out-of-range index
silently, so x[10] of 5 elements is x[4]. Use .at[idx].get(mode="fill", fill_value=fill), or a
jnp.where on the range."""


def take_or_fill(x, idx, fill):
    return x[idx]
