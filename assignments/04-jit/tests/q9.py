from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 8

@test_case(points=0, hidden=False)
def test_benchmark_returns_seconds(benchmark):
    import jax
    import jax.numpy as jnp
    seconds = benchmark(jax.jit(jnp.sin), jnp.ones(1000), repeats=3)
    assert seconds is not None, 'benchmark returned None; is the body still `...`?'
    assert isinstance(seconds, float), f'benchmark should return a Python float, got {type(seconds).__name__}'
    assert 0 < seconds < 1, f'one call of jit(sin) on 1000 numbers takes microseconds, benchmark said {seconds} s'

