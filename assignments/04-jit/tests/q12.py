from otter.test_files import test_case

OK_FORMAT = False

name = "q12"
points = 12

@test_case(points=0, hidden=False)
def test_affine_is_a_pytree(Affine):
    import jax
    import jax.numpy as jnp
    p = Affine(w=jnp.ones((2, 3)), b=jnp.zeros(3))
    flat = jax.tree.leaves(p)
    assert len(flat) == 2, f'jax.tree.leaves(Affine(w=..., b=...)) should be [w, b], got {len(flat)} leaf/leaves; is Affine registered as a pytree?'
    assert flat[0] is p.w and flat[1] is p.b, 'jax.tree.leaves(p) should be [p.w, p.b], in that order'
    doubled = jax.jit(lambda p: jax.tree.map(lambda a: 2 * a, p))(p)
    assert type(doubled).__name__ == 'Affine', f'jax.jit of a jax.tree.map over an Affine should give back an Affine, got {type(doubled).__name__}'

@test_case(points=0, hidden=False)
def test_sgd_update_example(Affine, sgd_update):
    import jax.numpy as jnp
    import numpy as np
    params = Affine(w=jnp.ones((2, 3)), b=jnp.zeros(3))
    grads = Affine(w=jnp.full((2, 3), 2.0), b=jnp.ones(3))
    new = sgd_update(params, grads, 0.5)
    assert new is not None, 'sgd_update returned None; is the body still `...`?'
    assert type(new).__name__ == 'Affine', f'sgd_update on Affine params and grads should return an Affine, got {type(new).__name__}'
    assert np.allclose(new.w, 0.0) and np.allclose(new.b, -0.5), f'w = 1, b = 0 with gradients 2 and 1 and lr = 0.5 should give w = 0, b = -0.5 (p - lr * g); got w = {new.w}, b = {new.b}'

