from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 8

@test_case(points=0, hidden=False)
def test_value_grad_aux(value_grad_aux):
    import jax.numpy as jnp

    def loss_fn(params, batch):
        pred = batch['x'] * params['w']
        return (jnp.sum(pred ** 2), {'pred': pred})
    params, batch = ({'w': jnp.array([1.0, 2.0])}, {'x': jnp.array([3.0, 4.0])})
    out = value_grad_aux(loss_fn, params, batch)
    assert out is not None, 'value_grad_aux returned None: fill in its body (it is still the stub `...`)'
    assert isinstance(out, tuple) and len(out) == 3, 'return the flat tuple (loss, aux, grads)'
    loss, aux, grads = out
    assert jnp.allclose(loss, 73.0), f'loss: expected 73.0, got {loss}'
    assert jnp.allclose(aux['pred'], jnp.array([3.0, 8.0])), "aux is loss_fn's second output"
    assert isinstance(grads, dict) and set(grads) == {'w'}, "grads has the structure of params: here a dict with the key 'w'"
    assert jnp.allclose(grads['w'], jnp.array([18.0, 64.0])), f"grads['w']: expected [18. 64.], got {grads['w']}"

