from otter.test_files import test_case

OK_FORMAT = False

name = "q10"
points = 9

@test_case(points=0, hidden=False)
def test_grad_wrt_w_and_b(grad_wrt_w_and_b):
    import jax.numpy as jnp
    calls = []

    def loss(w, b, x, y):
        calls.append(1)
        return jnp.sum((x @ w + b - y) ** 2)
    w, b = (jnp.array([[1.0], [2.0]]), jnp.array([0.5]))
    x, y = (jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), jnp.array([[1.0], [2.0], [3.0]]))
    out = grad_wrt_w_and_b(loss, w, b, x, y)
    assert out is not None, 'grad_wrt_w_and_b returned None: fill in its body (it is still the stub `...`)'
    assert isinstance(out, tuple) and len(out) == 2, 'return the pair (dw, db)'
    dw, db = out
    assert dw.shape == (2, 1) and db.shape == (1,), f'dw and db have the shapes of w (2, 1) and b (1,), got {dw.shape} and {db.shape}'
    assert jnp.allclose(dw, jnp.array([[2.0], [2.0]])), f'dw: expected [[2.] [2.]], got {dw}'
    assert jnp.allclose(db, jnp.array([3.0])), f'db: expected [3.], got {db}'
    assert len(calls) == 1, f'loss ran {len(calls)} times in one call; one jax.grad(loss, argnums=(0, 1)) gives dw and db from a single run'

