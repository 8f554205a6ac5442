"""soma.Env: a simulation in the reset/step convention of reinforcement-learning libraries
(Gymnasium's: reset(seed) -> (observation, info); step(action) -> (observation, reward,
terminated, truncated, info)), without depending on one (docs/python.md)."""

import operator

import numpy as np

from ._soma import SceneError, StepFailed
from .simulation import Simulation


class ActionSpace:
    """The actions' box, [-1, 1] per entry (Gymnasium's Box(-1, 1, shape, float64) in spirit);
    with `batch`, the box of a VectorEnv's actions, one row per environment."""

    def __init__(self, size, rng, batch=None):
        self.shape = (size,) if batch is None else (batch, size)
        self.low = -np.ones(self.shape)
        self.high = np.ones(self.shape)
        self.dtype = np.float64
        self._rng = rng

    def sample(self):
        """A uniform action from the environment's seeded generator."""
        return self._rng.uniform(-1.0, 1.0, self.shape)

    def contains(self, action):
        action = np.asarray(action)
        return action.shape == self.shape and bool(np.all(np.abs(action) <= 1.0))


class _Action:
    """One entry of the action vector: a range of one component (or all) of an actuation channel."""

    def __init__(self, sim, spec, index):
        missing = {"element", "channel", "low", "high"} - set(spec)
        if missing:
            raise ValueError(f"actions[{index}]: missing {sorted(missing)} (an action names element, channel, low, "
                             "high, and optionally items and component)")
        unknown = set(spec) - {"element", "channel", "low", "high", "items", "component"}
        if unknown:
            raise ValueError(f"actions[{index}]: unknown key(s) {sorted(unknown)} (known: element, channel, low, "
                             "high, items, component)")
        self.element, self.channel = spec["element"], spec["channel"]
        self.low, self.high = float(spec["low"]), float(spec["high"])
        if not (np.isfinite(self.low) and np.isfinite(self.high) and self.low < self.high):
            raise ValueError(f"actions[{index}]: low must be below high, both finite (got {self.low}, {self.high})")
        info = sim._channel(self.element, self.channel)
        components = info["components"]
        self.items = None if spec.get("items") is None else [operator.index(i) for i in spec["items"]]
        if self.items is not None:
            bad = [i for i in self.items if not 0 <= i < info["count"]]
            if bad or not self.items:
                raise ValueError(f"actions[{index}]: items must be a non-empty list of indices from 0 to "
                                 f"{info['count'] - 1} (channel '{self.channel}' of '{self.element}'), got {spec['items']}")
        component = spec.get("component")
        if component is None:
            self.components = list(range(len(components)))
        elif isinstance(component, str):
            if component not in components:
                raise ValueError(f"actions[{index}]: channel '{self.channel}' has no component '{component}' "
                                 f"(its components: {components})")
            self.components = [components.index(component)]
        else:
            if not 0 <= int(component) < len(components):
                raise ValueError(f"actions[{index}]: component {component} out of range ({len(components)} components)")
            self.components = [int(component)]

        self.rows = slice(None) if self.items is None else self.items
        self.values = None

    def read(self, sim, shared):
        """The channel's values now (after a reset: the episode's start), one array per channel
        in `shared`, so that two actions on one channel compose."""
        key = (self.element, self.channel)
        if key not in shared:
            shared[key] = sim.actuation(self.element, self.channel)
        self.values = shared[key]

    def apply(self, sim, value):
        """Sets the selected items' components to low + (value + 1) / 2 (high - low)."""
        physical = self.low + 0.5 * (value + 1.0) * (self.high - self.low)
        for c in self.components:
            self.values[self.rows, c] = physical
        # the whole channel in one call (cheap next to a step)
        sim._sim.set_actuation(self.element, self.channel, [], self.values.ravel().tolist())


def default_observation(sim):
    """Positions and velocities of every element's points, flattened (float64)."""
    parts = []
    for name in sim.elements:
        parts.append(sim.positions(name).ravel())
        parts.append(sim.velocities(name).ravel())
    return np.concatenate(parts) if parts else np.zeros(0)


class Env:
    """A scene as a reinforcement-learning environment.

    scene, overrides, base_directory: as for soma.Simulation (no outputs are written).
    actions: a list of dicts {element, channel, low, high, items (default all), component (name or
        index; default all)}; action entry k in [-1, 1] maps linearly to [low, high] (values outside
        [-1, 1] are clipped) and is set on the selected items before the steps it drives.
    observation: a function sim -> array (default: every element's point positions and velocities).
    reward: a function (sim, action) -> float (default 0).
    action_repeat: steps of the scene's dt per step(action) (default 1): each action holds for
        action_repeat * dt of simulated time, however many steps the integrator takes for it (a
        failed attempt is retried with smaller steps, which end on that time).
    max_newton_iterations: caps integrator.newton.max_iterations for speed; a step that needs more
        is retried with a smaller dt, and one that still fails ends the episode.
    An episode is truncated at the scene's end time; a step that fails (a diverged simulation)
    terminates it with info['diagnosis'], instead of raising.
    """

    def __init__(self, scene, actions, observation=None, reward=None, action_repeat=1, max_newton_iterations=None,
                 overrides=(), base_directory=None):
        overrides = list(overrides)
        if int(action_repeat) < 1:
            raise ValueError(f"action_repeat must be at least 1, got {action_repeat}")
        if max_newton_iterations is None:
            self.sim = Simulation(scene, overrides=overrides, base_directory=base_directory)
        else:
            if int(max_newton_iterations) < 1:
                raise ValueError("max_newton_iterations must be at least 1")
            cap = int(max_newton_iterations)
            try:
                self.sim = Simulation(scene, overrides=overrides + [f"integrator.newton.max_iterations={cap}"],
                                      base_directory=base_directory)
            except SceneError as error:
                # --set adds a leaf to an existing map only: a scene without integrator.newton gets the map.
                if "has no key 'newton'" not in str(error):
                    raise
                self.sim = Simulation(scene, overrides=overrides + [f"integrator.newton={{max_iterations: {cap}}}"],
                                      base_directory=base_directory)
        if not actions:
            raise ValueError("actions: name at least one actuation channel to drive")
        self._actions = [_Action(self.sim, spec, k) for k, spec in enumerate(actions)]
        self._observe = observation or default_observation
        self._reward = reward or (lambda sim, action: 0.0)
        self.action_repeat = int(action_repeat)
        self.np_random = np.random.default_rng()
        self.action_space = ActionSpace(len(self._actions), self.np_random)
        # Each driven channel set once to what it holds: every episode's reset then starts from
        # the same values, as set (an element may store a channel transformed, to round-off).
        for entry in self._actions:
            self.sim.set_actuation(entry.element, entry.channel, self.sim.actuation(entry.element, entry.channel))
        self._initial = self.sim.state()
        self._episode_over = True

    def reset(self, seed=None, options=None):
        """Back to the scene's initial state and actuation; returns (observation, info)."""
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
            self.action_space._rng = self.np_random
        self.sim.set_state(self._initial)
        shared = {}
        for entry in self._actions:
            entry.read(self.sim, shared)
        self._episode_over = False
        return np.asarray(self._observe(self.sim), dtype=float), {"time": self.sim.time}

    def step(self, action):
        """Applies an action for action_repeat * dt; returns (observation, reward, terminated, truncated, info)."""
        if self._episode_over:
            raise RuntimeError("step() after the episode ended: call reset() first")
        action = np.asarray(action, dtype=float).reshape(-1)
        if action.shape != self.action_space.shape:
            raise ValueError(f"action has {action.size} entries, expected {self.action_space.shape[0]}")
        if not np.all(np.isfinite(action)):
            raise ValueError("action entries must be finite")
        action = np.clip(action, -1.0, 1.0)
        info = {}
        terminated = False
        for entry, value in zip(self._actions, action):
            entry.apply(self.sim, value)
        try:
            self.sim.advance(self.action_repeat * self.sim.dt)
        except StepFailed as failure:
            terminated = True
            info["diagnosis"] = failure.diagnosis
        truncated = not terminated and self.sim.done
        self._episode_over = terminated or truncated
        info["time"] = self.sim.time
        observation = np.asarray(self._observe(self.sim), dtype=float)
        reward = float(self._reward(self.sim, action))
        return observation, reward, terminated, truncated, info

    def close(self):
        self.sim.close()
