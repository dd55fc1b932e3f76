from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 6

@test_case(points=0, hidden=False)
def test_plot_losses_figure(plot_losses, np, plt):
    fig = plot_losses(np.linspace(2.0, 0.5, 7))
    assert fig is not None, 'plot_losses returned None: fill in its body'
    assert type(fig).__name__ == 'Figure', f'plot_losses should return a matplotlib Figure, got {type(fig).__name__}'
    lines = [line for ax in fig.get_axes() for line in ax.get_lines()]
    plt.close(fig)
    assert len(lines) == 1, f'the figure should hold one line, got {len(lines)}'
    assert len(lines[0].get_xdata()) == 7, f'7 losses should give a line of 7 points, got {len(lines[0].get_xdata())}'
    assert fig.get_axes()[0].get_yscale() == 'log', 'the y axis should be log-scale'

