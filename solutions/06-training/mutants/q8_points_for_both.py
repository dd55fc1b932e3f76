"""Draws the prediction as a second scatter (points, no line). Draw it with ax.plot over x sorted."""

# ruff: noqa: F821 - predict: the notebook's own
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    fig, ax = plt.subplots()
    ax.scatter(x[:, 0], y[:, 0])
    ax.scatter(x[:, 0], predict(params, x)[:, 0])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig
