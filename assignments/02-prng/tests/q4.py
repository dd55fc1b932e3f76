from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 13

@test_case(points=0, hidden=False)
def test_dropout_basics(dropout, jax, jnp):
    key = jax.random.key(0)
    x = jnp.ones((4, 5), jnp.float32)
    kept = dropout(key, x, 0.5, deterministic=True)
    assert kept is not None, 'dropout returned None: fill in its body'
    assert bool(jnp.array_equal(kept, x)), 'deterministic=True should return x unchanged'
    out = dropout(key, x, 0.5)
    assert out.shape == (4, 5) and out.dtype == jnp.float32, f'dropout should keep shape (4, 5) and dtype float32, got {out.shape} {out.dtype}'
    assert bool(jnp.all((out == 0) | (out == 2))), 'with rate 0.5, every output of x = 1 should be 0 (dropped) or 1 / (1 - 0.5) = 2 (kept)'

