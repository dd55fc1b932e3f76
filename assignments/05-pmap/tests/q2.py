from otter.test_files import test_case

OK_FORMAT = False

name = "q2"
points = 8

@test_case(points=0, hidden=False)
def test_replicate_round_trip(replicate, unreplicate, jnp):
    tree = {'w': jnp.float32(1.5), 'counts': [jnp.arange(3, dtype=jnp.int32)]}
    rep = replicate(tree, 4)
    assert rep is not None, 'replicate returned None: fill in its body'
    assert isinstance(rep, dict) and set(rep) == {'w', 'counts'}, f'replicate should keep the dict structure, got {type(rep).__name__}'
    assert rep['w'].shape == (4,), f"a 0-d leaf replicated over 4 devices should have shape (4,), got {rep['w'].shape}"
    assert rep['counts'][0].shape == (4, 3), f"a (3,) leaf replicated over 4 devices should have shape (4, 3), got {rep['counts'][0].shape}"
    assert rep['counts'][0].dtype == jnp.int32, f"replicate should keep the dtype int32, got {rep['counts'][0].dtype}"
    back = unreplicate(rep)
    assert back is not None, 'unreplicate returned None: fill in its body'
    assert back['w'].shape == () and float(back['w']) == 1.5, 'unreplicate(replicate(tree, 4)) should give tree back'
    assert (back['counts'][0] == tree['counts'][0]).all(), 'unreplicate(replicate(tree, 4)) should give tree back'

