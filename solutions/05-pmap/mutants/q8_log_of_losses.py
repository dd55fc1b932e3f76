"""Plots np.log(losses) on a linear axis instead of the losses on a log axis: the y values are
not the losses and the scale is linear."""

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(losses):
    fig, ax = plt.subplots()
    ax.plot(np.arange(len(losses)), np.log(np.asarray(losses)))
    ax.set_xlabel("step")
    ax.set_ylabel("log loss")
    return fig
