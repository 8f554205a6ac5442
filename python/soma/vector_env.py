"""soma.VectorEnv: N copies of an Env stepped side by side in threads (docs/python.md)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .env import ActionSpace, Env


class VectorEnv:
    """N environments stepped in parallel threads; the simulations release the GIL while stepping.

    make_env: a function returning an Env (called num_envs times), or the keyword arguments of Env
        as a dict. threads: worker threads (default: num_envs, at most os.cpu_count()).
    reset(seed) seeds environment i with seed + i. An environment whose episode ends is reset in the
    same step (its seed stream continues): the returned observation is the new episode's first one,
    and info['final_observation'][i] holds the last one of the episode that ended.
    Results do not depend on the number of threads: each environment steps alone.
    """

    def __init__(self, make_env, num_envs, threads=None):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        factory = make_env if callable(make_env) else (lambda: Env(**make_env))
        self.envs = [factory() for _ in range(int(num_envs))]
        self.num_envs = len(self.envs)
        import os
        self._pool = ThreadPoolExecutor(max_workers=threads or min(self.num_envs, os.cpu_count() or 1))
        size = self.envs[0].action_space.shape[0]
        # Gymnasium's vector convention: one environment's space, and the batch's.
        self.single_action_space = ActionSpace(size, np.random.default_rng())
        self.action_space = ActionSpace(size, np.random.default_rng(), batch=self.num_envs)

    def reset(self, seed=None, options=None):
        """Resets every environment; returns (observations (N, ...), infos (list))."""
        results = list(self._pool.map(lambda k: self.envs[k].reset(None if seed is None else seed + k, options),
                                      range(self.num_envs)))
        if seed is not None:
            self.single_action_space._rng = np.random.default_rng(seed)
            self.action_space._rng = self.single_action_space._rng
        return np.stack([r[0] for r in results]), [r[1] for r in results]

    def step(self, actions):
        """Steps every environment with its row of actions (N, action size)."""
        actions = np.asarray(actions, dtype=float)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions must be shaped {self.action_space.shape}, got {actions.shape}")

        def one(k):
            observation, reward, terminated, truncated, info = self.envs[k].step(actions[k])
            if terminated or truncated:
                info = dict(info, final_observation=observation)
                observation, reset_info = self.envs[k].reset()
                info["reset_info"] = reset_info
            return observation, reward, terminated, truncated, info

        results = list(self._pool.map(one, range(self.num_envs)))
        return (np.stack([r[0] for r in results]), np.array([r[1] for r in results]),
                np.array([r[2] for r in results]), np.array([r[3] for r in results]), [r[4] for r in results])

    def close(self):
        self._pool.shutdown(wait=True)
        for env in self.envs:
            env.close()
