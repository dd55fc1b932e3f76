"""Forgets the axis labels. Label both axes."""

# ruff: noqa: F821 - predict: the notebook's own
import jax.numpy as jnp
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    order = jnp.argsort(x[:, 0])
    fig, ax = plt.subplots()
    ax.scatter(x[:, 0], y[:, 0])
    ax.plot(x[order, 0], predict(params, x[order])[:, 0])
    return fig
