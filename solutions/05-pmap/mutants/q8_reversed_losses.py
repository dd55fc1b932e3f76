"""Plots the losses in reverse order (the last step first), on a labelled log-scale axis. Plot them in
step order."""

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(losses):
    fig, ax = plt.subplots()
    ax.plot(np.asarray(losses)[::-1])
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    return fig
