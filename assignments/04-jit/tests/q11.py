from otter.test_files import test_case

OK_FORMAT = False

name = "q11"
points = 12

@test_case(points=0, hidden=False)
def test_lr_schedule_example(lr_schedule):
    import math
    import jax
    import jax.numpy as jnp
    import numpy as np
    out = lr_schedule(jnp.int32(0), 1.0, 2, 6)
    assert out is not None, 'lr_schedule returned None; is the body still `...`?'
    assert jnp.shape(out) == () and jnp.result_type(out) == jnp.float32, f'lr_schedule should return a float32 scalar, got shape {jnp.shape(out)} dtype {jnp.result_type(out)}'
    jitted = jax.jit(lambda step: lr_schedule(step, 1.0, 2, 6))
    try:
        got = [float(jitted(jnp.int32(step))) for step in range(8)]
    except jax.errors.ConcretizationTypeError as e:
        raise AssertionError(f'lr_schedule raises {type(e).__name__} when step is traced: a Python `if` (or int(), float()) on step needs its value; choose with jnp.where, lax.cond or lax.switch') from None
    cosine = [0.5 * (1 + math.cos(math.pi * k / 4)) for k in range(4)]
    want = [0.5, 1.0, *cosine, 0.0, 0.0]
    assert np.allclose(got, want, atol=1e-06), f'with base_lr = 1, warmup = 2, total = 6, steps 0 to 7 should give {np.round(want, 4).tolist()}, got {np.round(got, 4).tolist()}'

