"""Returns the Axes the curve was drawn on instead of its Figure."""

import matplotlib.pyplot as plt
import numpy as np


def plot_losses(losses):
    fig, ax = plt.subplots()
    ax.plot(np.arange(len(losses)), np.asarray(losses))
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    return ax
