"""Scatters the data with x and y swapped (ax.scatter(y, x)), on labelled axes. Put x on the horizontal
axis."""

# ruff: noqa: F821 - predict: the notebook's own
import jax.numpy as jnp
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    order = jnp.argsort(x[:, 0])
    fig, ax = plt.subplots()
    ax.scatter(y[:, 0], x[:, 0])
    ax.plot(x[order, 0], predict(params, x[order])[:, 0])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig
