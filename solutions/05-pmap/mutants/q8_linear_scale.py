"""Plots the losses on a linear y axis, where the first steps squash the rest of the curve. Set the y
scale to log."""

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(losses):
    fig, ax = plt.subplots()
    ax.plot(np.arange(len(losses)), np.asarray(losses))
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    return fig
