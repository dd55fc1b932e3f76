from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 10

@test_case(points=0, hidden=False)
def test_plot_fit_figure(plot_fit):
    import jax.numpy as jnp
    import matplotlib.pyplot as plt
    import numpy as np
    params = [{'W': jnp.ones((1, 2)), 'b': jnp.zeros(2)}, {'W': jnp.ones((2, 1)), 'b': jnp.zeros(1)}]
    x = jnp.array([[0.5], [-2.0], [1.5], [-0.5], [3.0]])
    fig = plot_fit(params, x, jnp.sin(x))
    assert fig is not None, 'plot_fit returned None: is it still the stub `...`?'
    assert type(fig).__name__ == 'Figure', f'plot_fit should return a matplotlib Figure, got {type(fig).__name__}'
    axes = fig.get_axes()
    lines = [line for ax in axes for line in ax.get_lines()]
    scatters = [c for ax in axes for c in ax.collections]
    plt.close(fig)
    assert len(scatters) == 1, f'plot_fit: the figure should hold one scatter of the data, got {len(scatters)}'
    assert len(lines) == 1, f'plot_fit: the figure should hold one line, got {len(lines)}'
    xs = np.asarray(lines[0].get_xdata(), float).ravel()
    assert len(xs) == 5 and np.all(np.diff(xs) >= 0), 'plot_fit: the line should have 5 points, sorted by x'
    assert all((ax.get_xlabel() and ax.get_ylabel() for ax in axes)), 'plot_fit: label both axes'

