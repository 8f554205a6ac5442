"""soma.Env and soma.VectorEnv: the reset/step convention, action mapping, termination and
determinism across threads."""

import numpy as np
import pytest

from conftest import rod_scene

CURL = [{"element": "beam", "channel": "natural_curvature", "component": "kappa1", "low": -30.0, "high": 30.0}]


def make_env(soma, **kwargs):
    return soma.Env(rod_scene(duration=0.05), actions=CURL, **kwargs)


def test_reset_and_step_follow_the_convention(soma):
    env = make_env(soma, reward=lambda sim, action: -sim.positions("beam")[-1, 2])
    observation, info = env.reset(seed=3)
    assert observation.shape == (11 * 3 * 2,) and info["time"] == 0.0
    assert env.action_space.shape == (1,)
    observation, reward, terminated, truncated, info = env.step([0.5])
    assert observation.shape == (66,) and isinstance(reward, float)
    assert not terminated and not truncated and info["time"] == pytest.approx(1e-3)
    # action 0.5 in [-1, 1] is 15 1/m in [-30, 30], on kappa1 of every spring; kappa2 untouched
    curvature = env.sim.actuation("beam", "natural_curvature")
    np.testing.assert_allclose(curvature[:, 0], 15.0, rtol=1e-15)
    np.testing.assert_array_equal(curvature[:, 1], 0.0)
    # out-of-range actions are clipped to [-1, 1]
    env.step([7.0])
    np.testing.assert_allclose(env.sim.actuation("beam", "natural_curvature")[:, 0], 30.0, rtol=1e-15)


def test_reset_repeats_an_episode_exactly(soma):
    env = make_env(soma, action_repeat=2)
    actions = np.linspace(-1, 1, 10)
    runs = []
    for _ in range(2):
        observation, _ = env.reset()
        trajectory = [observation]
        for a in actions:
            trajectory.append(env.step([a])[0])
        runs.append(np.array(trajectory))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert env.sim.time == pytest.approx(20e-3)
    env.reset()
    np.testing.assert_array_equal(env.sim.actuation("beam", "natural_curvature"), 0.0)


def test_an_episode_is_truncated_at_the_end_time(soma):
    env = make_env(soma, action_repeat=20)
    env.reset()
    flags = [env.step([0.0])[3] for _ in range(3)]
    assert flags == [False, False, True]  # 60 steps of 1 ms reach 0.05 s at the third
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0.0])


def test_a_diverged_step_terminates_the_episode(soma):
    env = soma.Env(rod_scene(integrator="symplectic_euler", duration=0.2), actions=CURL, action_repeat=200)
    env.reset()
    observation, reward, terminated, truncated, info = env.step([0.0])
    assert terminated and not truncated
    assert "stable only for dt < 2/omega_max" in info["diagnosis"]
    assert np.all(np.isfinite(observation))


def test_newton_cap_and_bad_actions_are_checked(soma):
    env = make_env(soma, max_newton_iterations=1)
    env.reset()
    env.step([0.1])  # a capped Newton iteration retries smaller steps; this small rod converges
    with pytest.raises(ValueError, match="expected 1"):
        env.step([0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        env.step([np.nan])
    with pytest.raises(ValueError, match="missing"):
        soma.Env(rod_scene(), actions=[{"element": "beam"}])
    with pytest.raises(ValueError, match="has no component 'kappa3'"):
        soma.Env(rod_scene(), actions=[dict(CURL[0], component="kappa3")])
    with pytest.raises(ValueError, match="items must be a non-empty list of indices from 0 to 8"):
        soma.Env(rod_scene(), actions=[dict(CURL[0], items=[-1])])
    with pytest.raises(soma.SceneError, match="no element named"):
        soma.Env(rod_scene(), actions=[dict(CURL[0], element="arm")])


def test_vector_env_is_deterministic_and_equals_sequential_envs(soma):
    # 4 environments with seeded random actions, stepped by 4 threads and by 1, and one by one
    # without VectorEnv: every observation must agree bit for bit (each simulation steps alone).
    def rollout(threads):
        vector = soma.VectorEnv(lambda: make_env(soma, action_repeat=5), num_envs=4, threads=threads)
        observations, _ = vector.reset(seed=11)
        history = [observations]
        rng = np.random.default_rng(5)
        actions = rng.uniform(-1, 1, (12, 4, 1))
        for a in actions:
            observations, rewards, terminated, truncated, infos = vector.step(a)
            history.append(observations)
        vector.close()
        return np.array(history), actions, truncated, infos

    parallel, actions, truncated, infos = rollout(4)
    vector = soma.VectorEnv(lambda: make_env(soma), num_envs=3)
    vector.reset(seed=1)
    assert vector.action_space.shape == (3, 1) and vector.single_action_space.shape == (1,)
    assert vector.step(vector.action_space.sample())[0].shape == (3, 66)
    vector.close()
    serial, _, _, _ = rollout(1)
    np.testing.assert_array_equal(parallel, serial)
    # 12 x 5 steps of 1 ms pass the 50 ms end time at step 10: every episode was truncated and
    # reset, and the last 2 steps began new episodes
    assert "final_observation" not in infos[0]
    for k in range(4):
        env = make_env(soma, action_repeat=5)
        first, _ = env.reset(seed=11 + k)
        for step in range(9):
            observation = env.step(actions[step, k])[0]
            np.testing.assert_array_equal(observation, parallel[step + 1, k])
        np.testing.assert_array_equal(first, parallel[10, k])  # the 10th step ended it: a new episode
    assert parallel.shape == (13, 4, 66)


def test_two_actions_on_one_channel_compose(soma):
    env = soma.Env(rod_scene(), actions=[dict(CURL[0], items=[0, 1, 2]),
                                         dict(CURL[0], component="kappa2", low=0.0, high=10.0)])
    env.reset()
    env.step([1.0, -1.0])
    env.step([1.0, 1.0])
    curvature = env.sim.actuation("beam", "natural_curvature")
    np.testing.assert_array_equal(curvature[:3, 0], 30.0)
    np.testing.assert_array_equal(curvature[3:, 0], 0.0)
    np.testing.assert_array_equal(curvature[:, 1], 10.0)
