from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 16

@test_case(points=0, hidden=False)
def test_adam_init_structure(adam_init):
    import jax.numpy as jnp
    params = {'w': jnp.ones((2, 3)), 'layers': [{'b': jnp.ones(4)}]}
    state = adam_init(params)
    assert state is not None, 'adam_init returned None: is it still the stub `...`?'
    assert isinstance(state, dict) and set(state) == {'m', 'v', 't'}, 'adam_init should return a dict with the keys m, v and t'
    assert state['m']['w'].shape == (2, 3) and state['v']['layers'][0]['b'].shape == (4,), 'adam_init: m and v should be pytrees shaped like params'
    assert bool(jnp.all(state['m']['w'] == 0)), 'adam_init: m should start at zero'
    assert getattr(state['t'], 'dtype', None) == jnp.int32 and int(state['t']) == 0, 'adam_init: t should be jnp.int32(0)'

@test_case(points=0, hidden=False)
def test_adam_first_step(adam_update):
    import jax.numpy as jnp
    import numpy as np
    params = {'w': jnp.array([1.0, -2.0, 0.5])}
    grads = {'w': jnp.array([0.5, -0.1, 2.0])}
    state = {'m': {'w': jnp.zeros(3)}, 'v': {'w': jnp.zeros(3)}, 't': jnp.int32(0)}
    out = adam_update(grads, state, params, 0.01)
    assert out is not None, 'adam_update returned None: is it still the stub `...`?'
    new_params, new_state = out
    assert int(new_state['t']) == 1, f"adam_update: t should go from 0 to 1, got {new_state['t']}"
    assert np.allclose(new_state['m']['w'], 0.1 * np.asarray(grads['w']), rtol=1e-05), 'adam_update: after one step from zero, m should be (1 - b1) * g'
    want = np.array([1.0 - 0.01, -2.0 + 0.01, 0.5 - 0.01])
    assert np.allclose(new_params['w'], want, rtol=1e-05), f"adam_update: the first step should move every parameter by lr against its gradient (bias correction), expected {want.tolist()}, got {np.asarray(new_params['w']).tolist()}"

@test_case(points=0, hidden=False)
def test_adam_rules(adam_init, adam_update):
    import ast
    import inspect
    import textwrap
    import jax.numpy as jnp
    libraries = ('optax', 'flax', 'jax.example_libraries')
    for fn in (adam_init, adam_update):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            continue
        env = getattr(fn, '__globals__', {})
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for stmt in ast.walk(tree):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                names |= {a.name for a in stmt.names} | {getattr(stmt, 'module', None) or ''}
        used = []
        for candidate in sorted(names):
            obj = env.get(candidate)
            module = getattr(obj, '__name__', '') if inspect.ismodule(obj) else getattr(obj, '__module__', '')
            if {'optax', 'flax', 'example_libraries', 'optimizers'} & set(candidate.split('.')) or (isinstance(module, str) and module.startswith(libraries)):
                used.append(candidate)
        assert not used, f'{fn.__name__} uses {used[0]}, an optimiser library: write Adam yourself with jax.tree.map (rule 1)'
    params = {'w': jnp.ones(2)}
    state = adam_init(params)
    assert state is not None, 'adam_init returned None: is it still the stub `...`?'
    assert adam_update({'w': jnp.ones(2)}, state, params, 0.1) is not None, 'adam_update returned None: is it still the stub `...`?'

