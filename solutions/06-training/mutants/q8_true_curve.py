"""Draws the true sin(x) as the line instead of the model's prediction."""

import jax.numpy as jnp
import matplotlib.pyplot as plt


def plot_fit(params, x, y):
    xs = jnp.sort(x[:, 0])
    fig, ax = plt.subplots()
    ax.scatter(x[:, 0], y[:, 0])
    ax.plot(xs, jnp.sin(xs))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig
