"""Draws the prediction over x as it comes, unsorted, so the line zig-zags across the plot. Sort x (and
the prediction with it) first."""

# ruff: noqa: F821 - predict: the notebook's own
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    fig, ax = plt.subplots()
    ax.scatter(x[:, 0], y[:, 0])
    ax.plot(x[:, 0], predict(params, x)[:, 0])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig
