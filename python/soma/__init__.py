"""Soma from Python: load a scene, step it, read and set its state and actuation.

    import soma
    sim = soma.Simulation("configs/rods/cantilever.yaml")
    sim.step(100)
    tip = sim.positions("beam")[-1]

See docs/python.md. soma.Env and soma.VectorEnv wrap a simulation in the reset/step convention of
reinforcement-learning libraries.
"""

from ._soma import SceneError, StepFailed
from .simulation import Simulation, State
from .env import ActionSpace, Env
from .vector_env import VectorEnv

__all__ = ["Simulation", "State", "SceneError", "StepFailed", "Env", "ActionSpace", "VectorEnv"]
