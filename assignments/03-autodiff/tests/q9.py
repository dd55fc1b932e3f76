from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 13

@test_case(points=0, hidden=False)
def test_clip_gradient_forward(clip_gradient):
    import jax.numpy as jnp
    x = jnp.array([-3.0, -0.5, 0.25, 2.0])
    out = clip_gradient(x, -1.0, 0.5)
    assert out is not None, 'clip_gradient returned None: fill in its body (it is still the stub `...`)'
    assert out.shape == x.shape and out.dtype == jnp.float32, f'expected float32 of shape {x.shape}, got {out.dtype} {out.shape}'
    assert jnp.array_equal(out, x), f'the forward value is x itself, {x}, got {out}: clip only the cotangent, in the backward rule'

@test_case(points=0, hidden=False)
def test_clip_gradient_backward(clip_gradient):
    import jax
    import jax.numpy as jnp
    x, w = (jnp.array([-3.0, -0.5, 0.25, 2.0]), jnp.array([-3.0, -0.5, 0.25, 2.0]))
    assert clip_gradient(x, -1.0, 0.5) is not None, 'clip_gradient returned None: fill in its body (it is still the stub `...`)'
    jaxpr = str(jax.make_jaxpr(lambda x: clip_gradient(x, -1.0, 0.5))(x))
    assert 'custom_vjp_call' in jaxpr, 'clip_gradient is not a jax.custom_vjp function: its jaxpr holds no custom_vjp_call: decorate it with @partial(jax.custom_vjp, nondiff_argnums=(1, 2)) and register its rules with clip_gradient.defvjp(fwd, bwd)'
    try:
        grad = jax.grad(lambda x: jnp.sum(clip_gradient(x, -1.0, 0.5) * w))(x)
    except (TypeError, ValueError) as e:
        raise AssertionError(f'jax.grad through clip_gradient raised {type(e).__name__}: {str(e).splitlines()[0]} (check nondiff_argnums=(1, 2), fwd(x, lo, hi) -> (output, residuals) and bwd(lo, hi, residuals, g) -> (x_bar,))') from None
    expected = jnp.clip(w, -1.0, 0.5)
    assert jnp.allclose(grad, expected), f'the cotangent {w} clipped to [-1, 0.5] is {expected}, got {grad}'

